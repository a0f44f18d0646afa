"""WAV files the suites upload or script: 16-bit mono PCM, made with the standard library."""

from __future__ import annotations

import io
import wave


def wav_of(frames: bytes, rate: int = 16_000) -> bytes:
    """A WAV file of these 16-bit mono frames at `rate` samples a second."""
    out = io.BytesIO()
    with wave.open(out, "wb") as made:
        made.setnchannels(1)
        made.setsampwidth(2)
        made.setframerate(rate)
        made.writeframes(frames)
    return out.getvalue()


def wav(seconds: float, pattern: bytes = b"\0\0") -> bytes:
    """A WAV file `seconds` long at 16 kHz: silence, or `pattern` repeated (sound a decoder cannot
    take for an empty file)."""
    size = int(16_000 * seconds) * 2
    return wav_of((pattern * (size // len(pattern) + 1))[:size])
