"""Placeholder videos: H.264 in MP4 (PyAV, the `video` extra, imported on the first video made), a
flat background with blocks that cross it, their colours, sizes and speeds read from a digest of
the seed and the request, so the same request makes the same bytes. One encoder thread and fixed
options keep x264's output the same from run to run."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Any

from zenmux_emulator.faces.media.fields import encoder

VIDEO_EXTRA = "video"
"""The extra PyAV comes with: its wheels carry ffmpeg (tens of MB), which a user of images and
audio alone should not have to install."""
FPS = 24
BLOCKS = 3
RATIOS: dict[str, tuple[int, int]] = {
    "16:9": (16, 9),
    "9:16": (9, 16),
    "1:1": (1, 1),
    "4:3": (4, 3),
    "3:4": (3, 4),
    "21:9": (21, 9),
    "9:21": (9, 21),
    "adaptive": (16, 9),
}
"""The aspect ratios the docs name (`adaptive`, the shape of a first frame, is 16:9 here: the
emulator does not read the frame)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """What a video is made as: its frame size and its length in seconds."""

    width: int
    height: int
    seconds: int

    @classmethod
    def of(cls, resolution: str, ratio: str, seconds: int) -> Shape:
        """`720p` at `16:9` is 1280x720: the short side is the resolution's, the long one follows the
        ratio, both even (H.264's 4:2:0 needs it)."""
        short = int(resolution.removesuffix("p"))
        wide, high = RATIOS[ratio]
        long = round(short * max(wide, high) / min(wide, high) / 2) * 2
        return cls(long, short, seconds) if wide >= high else cls(short, long, seconds)


def digest(seed: int, material: bytes) -> bytes:
    """64 bytes that decide one video's colours and motion."""
    return hashlib.sha512(f"{seed}:video:".encode() + material).digest()


def film(shape: Shape, bits: bytes) -> bytes:
    """The video as MP4 bytes: `shape.seconds` of `FPS` frames, `shape.width` x `shape.height`."""
    av: Any = encoder("av", "videos", VIDEO_EXTRA)
    numpy: Any = encoder("numpy", "videos", VIDEO_EXTRA)
    out = io.BytesIO()
    with av.open(out, "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = shape.width, shape.height, "yuv420p"
        stream.options = {"preset": "ultrafast", "crf": "35"}
        stream.codec_context.thread_count = 1
        frame = numpy.empty((shape.height * 3 // 2, shape.width), dtype=numpy.uint8)
        for index in range(shape.seconds * FPS):
            paint(frame, shape, bits, index)
            picture = av.VideoFrame.from_ndarray(frame, format="yuv420p")
            picture.pts = index
            container.mux(stream.encode(picture))
        container.mux(stream.encode(None))
    return out.getvalue()


def paint(frame: Any, shape: Shape, bits: bytes, index: int) -> None:
    """One frame, in place: the planes of a yuv420p picture stacked (luma, then the two chroma)."""
    width, height = shape.width, shape.height
    frame[:height] = 32 + bits[0] % 160
    frame[height:] = 64 + bits[1] % 128
    area = width * height
    blue = frame.reshape(-1)[area : area + area // 4].reshape(height // 2, width // 2)
    for n in range(BLOCKS):
        b = bits[2 + n * 6 : 8 + n * 6]
        side = (b[0] % 48 + 16) * min(width, height) // 256 // 2 * 2
        travel = max(width - side, 1)
        speed = b[1] % 7 + 2
        x = (b[2] * travel // 256 + index * speed) % travel // 2 * 2
        y = b[3] * max(height - side, 1) // 256 // 2 * 2
        frame[y : y + side, x : x + side] = 48 + b[4] % 192
        blue[y // 2 : (y + side) // 2, x // 2 : (x + side) // 2] = b[5]


MIME = "video/mp4"
