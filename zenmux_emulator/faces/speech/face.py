"""The speech face (ZenMux's docs_source/en/api/openai/create-audio-speech.md). ZenMux documents a JSON
answer (`{model, audio: <base64>, mime_type, usage}`) and SSE of `speech.audio.delta` events; the
openai SDK asks for the audio's bytes (`Accept: application/octet-stream`). The emulator answers
the bytes when the request's `Accept` asks for them (an octet stream or `audio/*`), ZenMux's JSON
otherwise. The audio reads the rule's `content` when a rule gives one, else the request's input, in
the rule's `speech.voice` and `speech.format` over the request's; a rule's `speech.file` is answered
as it is (`reply.py`)."""

from __future__ import annotations

import base64
import io
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.media.fields import DONE, event
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.faces.speech.audio import MIME, duration_s, encode, samples
from zenmux_emulator.faces.speech.reply import KIND_MIME, Speech, SpeechReply, kind_of
from zenmux_emulator.faces.speech.request import SpeechRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.metered import METERED, meter
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

AUDIO_TOKENS_PER_S = 25
"""Audio output tokens per second (Gemini's rate for audio)."""
CHUNK = 16 * 1024
"""The encoded bytes of one streamed delta."""


SPOKEN: Made[tuple[bytes, float]] = Made(lambda made: len(made[0]))
"""The audio `prepare` encoded in a thread, with its length in seconds, by all it depends on: the
text read, the voice, the speed and the format."""
ON_LOOP = frozenset({"pcm", "wav"})
"""The formats made on the loop: their bytes are the samples as they are (or behind a 44-byte
header), joined from a few dozen tones, about 0.1 s for the longest (4,096 characters at speed
0.25, 46 MB) and too large to keep; mp3, flac and opus are encoded, up to 10 s of work (opus)."""


@dataclass(frozen=True, slots=True)
class Voice:
    """How the audio is made: the voice, speed and format, the request's or its rule's."""

    voice: str
    speed: float
    format: str


def voice_of(draft: Draft, request: SpeechRequest) -> Voice:
    said = scripted(draft)
    voice = said.voice if said is not None and said.voice else request.voice
    kind = said.format if said is not None and said.format else request.response_format
    return Voice(voice, request.speed, kind)


def scripted(draft: Draft) -> Speech | None:
    spec = draft.spec
    return spec.speech if isinstance(spec, SpeechReply) else None


def audio_of(text: str, how: Voice) -> tuple[bytes, float]:
    """The encoded audio reading `text` and its length in seconds, encoded in a thread by `prepare`
    beforehand, else now."""

    def make() -> tuple[bytes, float]:
        pcm = samples(text, how.voice, how.speed)
        return encode(pcm, how.format), duration_s(pcm)

    if how.format in ON_LOOP:
        return make()
    return SPOKEN.get((text, how.voice, how.speed, how.format), make)


FILE_BYTES_PER_S = 16_000
"""A given file's length, when it is not a wav: its size read at 128 kbit/s."""


def file_seconds(data: bytes) -> float:
    try:
        with wave.open(io.BytesIO(data)) as read:
            frames: int = read.getnframes()
            rate: int = read.getframerate()
            if rate > 0:
                return frames / rate
    except (wave.Error, EOFError):
        pass
    return len(data) / FILE_BYTES_PER_S


def answer_of(draft: Draft, request: SpeechRequest) -> tuple[bytes, float, str]:
    """The audio, its length in seconds and its content type: the rule's file as it is, else made."""
    said = scripted(draft)
    given = said.file if said is not None else None
    if given is not None:
        return given.data, file_seconds(given.data), KIND_MIME[kind_of(given.data) or "mp3"]
    how = voice_of(draft, request)
    audio, seconds = audio_of(spoken(draft, request), how)
    return audio, seconds, MIME[how.format]


def wants_bytes(ctx: FaceContext) -> bool:
    accept = ctx.headers.get("Accept", "").lower()
    return "application/octet-stream" in accept or "audio/" in accept


def spoken(draft: Draft, request: SpeechRequest) -> str:
    """What the audio reads: the rule's `content` when it gives one, else the request's input."""
    if draft.spec is not None and draft.spec.content is not None and draft.content:
        return draft.content
    return request.input


class SpeechFace:
    """Parse, render and error envelope of the speech API."""

    name = "speech"

    def parse(self, body: object, ctx: FaceContext) -> SpeechRequest:
        return parse_request(body, ctx.headers)

    def prepare(self, draft: Draft, request: SpeechRequest, seed: int) -> Callable[[], object] | None:
        """The audio `render` will send, encoded in a thread (after matching: it reads the rule's
        `content` when one gives it)."""
        how = voice_of(draft, request)
        said = scripted(draft)
        if how.format in ON_LOOP or (said is not None and said.file is not None):
            return None
        text = spoken(draft, request)
        return lambda: audio_of(text, how)

    def render(self, draft: Draft, exchange: Exchange[SpeechRequest]) -> ReplyPlan:
        request, ctx = exchange.ask, exchange.ctx
        audio, seconds, mime = answer_of(draft, request)
        output = max(round(seconds * AUDIO_TOKENS_PER_S), 1)
        usage = {"input_tokens": request.prompt_tokens, "output_tokens": output}
        usage["total_tokens"] = usage["input_tokens"] + output
        billed = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": output,
            "total_tokens": usage["total_tokens"],
            METERED: [meter("audio", "perSecond", round(seconds, 3))],
        }
        sent = {**draft.headers, **exchange.headers}
        if request.stream:
            events = Events.paced_but_last(lambda: _events(audio, mime, usage), 2)
            return sse_plan(sent, events, None, None, b"", None, usage=billed)
        if wants_bytes(ctx):
            plan = ReplyPlan(sent, audio, content_type=mime)
        else:
            body = {
                "model": request.requested_model,
                "audio": base64.b64encode(audio).decode(),
                "mime_type": mime,
                "usage": usage,
            }
            plan = ReplyPlan(sent, orjson.dumps(body))
        plan.usage = billed
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)


def _events(audio: bytes, mime: str, usage: dict[str, Any]) -> Iterator[bytes]:
    for at in range(0, len(audio), CHUNK):
        chunk = base64.b64encode(audio[at : at + CHUNK]).decode()
        yield event({"type": "speech.audio.delta", "audio": chunk, "mime_type": mime})
    yield event({"type": "speech.audio.done", "usage": usage})
    yield DONE


SPEECH = SpeechFace()
