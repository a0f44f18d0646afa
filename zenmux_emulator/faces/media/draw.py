"""Placeholder pictures: flat shapes whose colours and places are read from a digest of the seed,
the prompt and the inputs, so the same request draws the same bytes. A partial image is the same
picture with fewer of its shapes drawn."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Any

from zenmux_emulator.faces.media.fields import encoder

SHAPES = 12


@dataclass(frozen=True, slots=True)
class Canvas:
    """What a picture is drawn and encoded as."""

    size: tuple[int, int]
    output_format: str
    compression: int
    transparent: bool


def digest(seed: int, material: bytes, index: int) -> bytes:
    """64 bytes that decide one picture: its background and shapes."""
    return hashlib.sha512(f"{seed}:{index}:".encode() + material).digest()


def draw(canvas: Canvas, bits: bytes, stage: int = SHAPES) -> bytes:
    """The picture with its first `stage` shapes, encoded as asked."""
    image_module: Any = encoder("PIL.Image", "images")
    draw_module: Any = encoder("PIL.ImageDraw", "images")
    width, height = canvas.size
    mode = "RGBA" if canvas.transparent else "RGB"
    background = (bits[0], bits[1], bits[2], 0) if canvas.transparent else (bits[0], bits[1], bits[2])
    image = image_module.new(mode, canvas.size, background)
    pen = draw_module.Draw(image)
    for n in range(min(stage, SHAPES)):
        b = bits[4 + n * 5 : 9 + n * 5]
        x, y = b[0] * width // 256, b[1] * height // 256
        w, h = (b[2] % 64 + 16) * width // 256, (b[3] % 64 + 16) * height // 256
        colour = (b[4], b[2], b[0], 255) if canvas.transparent else (b[4], b[2], b[0])
        box = (x, y, min(x + w, width - 1), min(y + h, height - 1))
        if b[3] & 1:
            pen.ellipse(box, fill=colour)
        else:
            pen.rectangle(box, fill=colour)
    return encode(image, canvas)


PILLOW_FORMATS = {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp"}


def fitted(canvas: Canvas, data: bytes, stage: int = SHAPES) -> bytes:
    """A rule's image file as the canvas asks: the file as it is when it already has the canvas's
    size and format, else cropped to the canvas's shape about its centre, resized and encoded as
    asked. A partial stage is the same picture at a coarser resolution (`stage` of `SHAPES`)."""
    image_module: Any = encoder("PIL.Image", "images")
    ops: Any = encoder("PIL.ImageOps", "images")
    with image_module.open(io.BytesIO(data)) as opened:
        same = opened.size == canvas.size and PILLOW_FORMATS.get(opened.format) == canvas.output_format
        if same and stage >= SHAPES:
            return data
        converted = opened.convert("RGBA" if canvas.transparent else "RGB")
    image = ops.fit(converted, canvas.size, method=image_module.Resampling.LANCZOS)
    if stage < SHAPES:
        width, height = canvas.size
        coarse = (max(width * stage // SHAPES, 1), max(height * stage // SHAPES, 1))
        image = image.resize(coarse, image_module.Resampling.BILINEAR).resize(
            canvas.size, image_module.Resampling.NEAREST
        )
    return encode(image, canvas)


def encode(image: Any, canvas: Canvas) -> bytes:
    out = io.BytesIO()
    if canvas.output_format == "png":
        image.save(out, "PNG")
    elif canvas.output_format == "jpeg":
        image.save(out, "JPEG", quality=max(canvas.compression, 1))
    else:
        image.save(out, "WEBP", quality=canvas.compression, lossless=canvas.compression == 100)
    return out.getvalue()


MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
