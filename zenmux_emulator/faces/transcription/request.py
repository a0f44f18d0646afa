"""A transcription request: the openai SDK's multipart form (`file`, `response_format`,
`timestamp_granularities[]`, `stream`) or ZenMux's documented JSON (`input_audio: {data, format}`).

Rules match the uploaded file's name (`last_user`), the `prompt` (`system`), and, with
`any_message`, either of them or the file's `sha256:<hex>` digest and `bytes:<size>`."""

from __future__ import annotations

import base64
import binascii
import importlib
import io
import struct
import wave
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import InputsRequest
from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.media.form import Upload
from zenmux_emulator.faces.transcription.models import CATALOGUE
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

FORMATS = ("json", "text", "srt", "vtt", "verbose_json")
AUDIO_FORMATS = ("wav", "mp3", "flac", "m4a", "ogg", "webm", "aac", "mp4", "mpeg", "mpga", "opus")
MAX_FILE_BYTES = 25 * 1024 * 1024
FIELDS = frozenset(
    {
        "model", "file", "input_audio", "language", "prompt", "response_format", "temperature", "stream",
        "timestamp_granularities", "timestamp_granularities[]", "include", "include[]", "chunking_strategy",
        "enable_itn",
    }
)  # fmt: skip
ESTIMATED_BYTES_PER_S = 16_000
"""A compressed file the emulator cannot read the length of is taken as 128 kbit/s."""


class TranscriptionRequest(InputsRequest):
    face = "transcription"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], model: str, **options: Any) -> None:
        super().__init__(body, headers, model=model, stream=options["stream"], warnings=options["warnings"])
        self.audio: Upload = options["audio"]
        self.prompt: str = options["prompt"]
        self.language: str = options["language"]
        self.response_format: str = options["response_format"]
        self.granularities: tuple[str, ...] = options["granularities"]

    @cached
    def last_user(self) -> str:
        return self.audio.filename

    @cached
    def system(self) -> str:
        return self.prompt

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.audio.filename, self.prompt, f"sha256:{self.audio.sha256}", f"bytes:{len(self.audio.data)}")

    @cached
    def prompt_tokens(self) -> int:
        return tokens.count(self.prompt, 4096) + round(self.seconds * 10)

    @cached
    def seed_material(self) -> bytes:
        return b"\x00".join((self.requested_model.encode(), self.prompt.encode(), self.audio.sha256.encode()))

    @cached
    def seconds(self) -> float:
        """The audio's length: read from a wav (or, with the media extra, any file libsndfile reads),
        else estimated from its size."""
        try:
            with wave.open(io.BytesIO(self.audio.data)) as read:
                frames: int = read.getnframes()
                rate: int = read.getframerate()
                if rate > 0:
                    return frames / rate
        except (wave.Error, EOFError, struct.error, ValueError):  # not a wav, or a broken one
            pass
        try:
            soundfile: Any = importlib.import_module("soundfile")
            return float(soundfile.info(io.BytesIO(self.audio.data)).duration)
        except (ImportError, RuntimeError, TypeError, ValueError):
            return max(len(self.audio.data) / ESTIMATED_BYTES_PER_S, 0.1)


def _form_audio(body: Mapping[str, Any]) -> Upload:
    upload = body.get("file")
    if upload is None:
        raise invalid_params("Parameter file is required")
    if not isinstance(upload, Upload):
        raise invalid_params("Parameter file is not valid: expected an audio file")
    return upload


def _json_audio(body: Mapping[str, Any]) -> Upload:
    given = body.get("input_audio")
    if not isinstance(given, dict):
        raise invalid_params("Parameter input_audio is required")
    audio_format = given.get("format", "wav")
    if audio_format not in AUDIO_FORMATS:
        raise invalid_params(f"Parameter input_audio.format is not valid: expected one of {', '.join(AUDIO_FORMATS)}")
    data = given.get("data")
    if data is None and given.get("url") is not None:
        raise invalid_params("Parameter input_audio.url is not valid: the emulator does not fetch URLs; send data")
    if not isinstance(data, str) or not data:
        raise invalid_params("Parameter input_audio.data is required")
    try:
        decoded = base64.b64decode(data, validate=True)
    except binascii.Error:
        raise invalid_params("Parameter input_audio.data is not valid: expected base64") from None
    return Upload(f"audio.{audio_format}", f"audio/{audio_format}", decoded)


def parse_request(body: object, headers: Mapping[str, str]) -> TranscriptionRequest:
    """Validate the form or JSON (400 `invalid_params` naming the field) and read it."""
    body = fields.body_object(body)
    _, model = fields.model(body, CATALOGUE, None, "a transcription")
    audio = _json_audio(body) if "input_audio" in body else _form_audio(body)
    if len(audio.data) > MAX_FILE_BYTES:
        raise invalid_params(f"Parameter file is not valid: the file is larger than {MAX_FILE_BYTES} bytes (25 MB)")
    if not audio.data:
        raise invalid_params("Parameter file is not valid: the file is empty")
    granularities = fields.strings(body, "timestamp_granularities")
    for granularity in granularities:
        if granularity not in ("word", "segment"):
            raise invalid_params("Parameter timestamp_granularities is not valid: expected word or segment")
    return TranscriptionRequest(
        body,
        headers,
        model,
        audio=audio,
        prompt=fields.text(body, "prompt", "") or "",
        language=fields.text(body, "language", "en") or "en",
        response_format=fields.choice(body, "response_format", FORMATS, "json"),
        granularities=granularities or ("segment",),
        stream=fields.flag(body, "stream"),
        warnings=fields.ignored(body, FIELDS, "a transcription"),
    )
