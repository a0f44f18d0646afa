"""A speech request, checked as ZenMux documents it and as the openai SDK sends it (`stream_format:
"sse"`, or ZenMux's `stream: true`). Rules match its `input` (`last_user`) and its `instructions`
(`system`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import InputsRequest
from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.speech.models import CATALOGUE, VOICES
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
MAX_INPUT = 4096
FIELDS = frozenset({"model", "input", "voice", "response_format", "speed", "instructions", "stream_format", "stream"})


class SpeechRequest(InputsRequest):
    face = "speech"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], model: str, **options: Any) -> None:
        super().__init__(body, headers, model=model, stream=options["stream"], warnings=options["warnings"])
        self.input: str = options["input"]
        self.voice: str = options["voice"]
        self.response_format: str = options["response_format"]
        self.speed: float = options["speed"]
        self.instructions: str = options["instructions"]

    @cached
    def last_user(self) -> str:
        return self.input

    @cached
    def system(self) -> str:
        return self.instructions

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.input,)

    @cached
    def prompt_tokens(self) -> int:
        return tokens.count(self.input, MAX_INPUT) + tokens.count(self.instructions, MAX_INPUT)


def _voice(body: Mapping[str, Any]) -> str:
    voice = body.get("voice", "alloy")
    if isinstance(voice, dict):  # OpenAI's custom voice object, `{"id": ...}`
        voice = voice.get("id")
    if not isinstance(voice, str) or not voice:
        raise invalid_params("Parameter voice is not valid: expected a voice name")
    known = VOICES.get(voice.lower())
    if known is None:
        raise invalid_params(f"Parameter voice is not valid: unknown voice {voice!r}")
    return known


def parse_request(body: object, headers: Mapping[str, str]) -> SpeechRequest:
    """Validate the body (400 `invalid_params` naming the field) and read it."""
    body = fields.body_object(body)
    _, model = fields.model(body, CATALOGUE, None, "a speech")
    text = fields.text(body, "input", required=True)
    assert text is not None
    if len(text) > MAX_INPUT:
        raise invalid_params(f"Parameter input is not valid: at most {MAX_INPUT} characters")
    response_format = fields.choice(body, "response_format", FORMATS, "pcm")
    if response_format == "aac":
        raise invalid_params(
            "Parameter response_format is not valid: the emulator cannot encode aac (no AAC encoder ships as a "
            "Python wheel); ask for mp3, opus, flac, wav or pcm"
        )
    stream_format = fields.choice(body, "stream_format", ("sse", "audio"), "audio")
    return SpeechRequest(
        body,
        headers,
        model,
        input=text,
        voice=_voice(body),
        response_format=response_format,
        speed=fields.number(body, "speed", 0.25, 4.0, 1.0),
        instructions=fields.text(body, "instructions", "") or "",
        stream=stream_format == "sse" or fields.flag(body, "stream"),
        warnings=fields.ignored(body, FIELDS, "a speech"),
    )
