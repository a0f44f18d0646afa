"""The reply keys a rule for speech requests may use beyond every face's (`SPEC.reply`): `speech`, the
voice and format the answer has whatever the request asked, or an audio file to answer with."""

from __future__ import annotations

import io
import wave
from typing import Annotated, Literal, Self

from pydantic import BaseModel, Field, field_validator, model_validator

from zenmux_emulator.faces.speech.models import VOICES
from zenmux_emulator.scenario.attached import Attached, FileOf
from zenmux_emulator.scenario.schema import LANGUAGE, ReplyKeys

Kind = Literal["mp3", "opus", "flac", "wav", "pcm"]
KIND_MIME = {"mp3": "audio/mpeg", "opus": "audio/ogg", "flac": "audio/flac", "wav": "audio/wav"}
"""The content type a given file is answered with, by its kind (`kind_of`)."""


def kind_of(data: bytes) -> str | None:
    """The kind of an audio file by its first bytes: wav, flac, opus (any Ogg), mp3 (ID3 or a frame)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data[:4] == b"fLaC":
        return "flac"
    if data[:4] == b"OggS":
        return "opus"
    if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "mp3"
    return None


def _check_audio(data: bytes) -> str | None:
    kind = kind_of(data)
    if kind is None:
        return "not a wav, mp3, flac or Ogg file by its first bytes"
    if kind == "wav":
        try:
            with wave.open(io.BytesIO(data)) as read:
                read.getnframes()
        except (wave.Error, EOFError) as exc:
            return f"a wav the wave module cannot read ({exc})"
    return None


AudioFile = Annotated[Attached, FileOf(_check_audio, "an audio")]


class Speech(BaseModel):
    """What a speech answer is, whatever the request asked: its voice and format, or a file."""

    model_config = LANGUAGE

    voice: str | None = Field(None, description="the voice the placeholder audio is read in (else the request's)")
    format: Kind | None = Field(None, description="the audio's format (else the request's response_format)")
    file: AudioFile | None = Field(
        None,
        description=(
            "an audio file (wav, mp3, flac or Ogg; path relative to the scenario file, read at load) answered "
            "as it is, in its own format"
        ),
    )

    @field_validator("voice")
    @classmethod
    def _known_voice(cls, voice: str | None) -> str | None:
        if voice is None:
            return None
        known = VOICES.get(voice.lower())
        if known is None:
            raise ValueError(f"unknown voice {voice!r}")
        return known

    @model_validator(mode="after")
    def _file_alone(self) -> Self:
        if self.file is not None and (self.voice is not None or self.format is not None):
            raise ValueError("a file is answered as it is: give it without voice or format")
        return self


class SpeechReply(ReplyKeys):
    """`speech`: the voice and format of the answer, or the audio file it is."""

    speech: Speech | None = Field(
        None, description="the answer's voice and format whatever the request asked, or an audio file to answer with"
    )
