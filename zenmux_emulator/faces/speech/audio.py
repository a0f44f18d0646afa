"""Placeholder speech: one short tone per character (a pause for a space), its pitch from the voice and
the character, so the audio lasts as long as the text takes to read at the asked speed and the same
request gives the same samples. 16-bit mono at 24 kHz, as ZenMux's `pcm`; wav with the standard
library, mp3 with lameenc, flac and opus with soundfile (libsndfile)."""

from __future__ import annotations

import io
import math
import struct
import wave
import zlib
from array import array
from functools import lru_cache
from typing import Any

from zenmux_emulator.faces.media.fields import encoder

RATE = 24_000
CHARACTER_S = 0.06
"""How long one character takes at speed 1 (about 15 characters a second, as speech goes)."""
MIME = {
    "mp3": "audio/mpeg",
    "opus": "audio/ogg; codecs=opus",
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": f"audio/L16;rate={RATE}",
}


@lru_cache(maxsize=512)
def tone(frequency: int, samples: int) -> bytes:
    """One character's tone, faded in and out so characters do not click."""
    fade = max(samples // 8, 1)
    out = array("h")
    for i in range(samples):
        envelope = min(1.0, i / fade, (samples - i) / fade)
        out.append(int(8000 * envelope * math.sin(2 * math.pi * frequency * i / RATE)))
    return out.tobytes()


def samples(text: str, voice: str, speed: float) -> bytes:
    """The text's tones as 16-bit little-endian samples."""
    each = max(int(RATE * CHARACTER_S / speed), 16)
    base = 140 + zlib.crc32(voice.encode()) % 120
    silence = bytes(2 * each)
    parts = [silence if c.isspace() else tone(base + (ord(c) % 24) * 15, each) for c in text]
    return b"".join(parts)


def duration_s(pcm: bytes) -> float:
    return len(pcm) / 2 / RATE


def encode(pcm: bytes, response_format: str) -> bytes:
    if response_format == "pcm":
        return pcm
    if response_format == "wav":
        out = io.BytesIO()
        with wave.open(out, "wb") as made:
            made.setnchannels(1)
            made.setsampwidth(2)
            made.setframerate(RATE)
            made.writeframes(pcm)
        return out.getvalue()
    if response_format == "mp3":
        lameenc: Any = encoder("lameenc", "mp3 audio")
        mp3 = lameenc.Encoder()
        mp3.set_bit_rate(64)
        mp3.set_in_sample_rate(RATE)
        mp3.set_channels(1)
        mp3.set_quality(7)  # the fastest of the good settings: 16 minutes of tones in about 1.5 s
        return bytes(mp3.encode(pcm) + mp3.flush())
    return _soundfile(pcm, response_format)


def _soundfile(pcm: bytes, response_format: str) -> bytes:
    soundfile: Any = encoder("soundfile", f"{response_format} audio")
    numpy: Any = encoder("numpy", f"{response_format} audio")
    out = io.BytesIO()
    data = numpy.frombuffer(pcm, dtype="<i2")
    if response_format == "flac":
        soundfile.write(out, data, RATE, format="FLAC", subtype="PCM_16")
        return out.getvalue()
    soundfile.write(out, data, RATE, format="OGG", subtype="OPUS")
    return fixed_serial(out.getvalue())


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        r = i << 24
        for _ in range(8):
            r = ((r << 1) ^ 0x04C11DB7) if r & 0x80000000 else r << 1
        table.append(r & 0xFFFFFFFF)
    return table


CRC = _crc_table()


def _ogg_crc(page: bytes) -> int:
    crc = 0
    for byte in page:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ CRC[((crc >> 24) & 0xFF) ^ byte]
    return crc


def fixed_serial(ogg: bytes, serial: int = 0x5A454E4D) -> bytes:
    """The Ogg stream with its serial number fixed and each page's checksum made again: libsndfile
    draws the serial at random, and the same request must give the same bytes."""
    out = bytearray(ogg)
    at = 0
    while at + 27 <= len(out) and out[at : at + 4] == b"OggS":
        segments = out[at + 26]
        size = 27 + segments + sum(out[at + 27 : at + 27 + segments])
        struct.pack_into("<I", out, at + 14, serial)
        struct.pack_into("<I", out, at + 22, 0)
        struct.pack_into("<I", out, at + 22, _ogg_crc(bytes(out[at : at + size])))
        at += size
    return bytes(out)
