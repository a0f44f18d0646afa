"""The speech face (ZenMux's docs_source/en/api/openai/create-audio-speech.md). ZenMux documents a JSON
answer (`{model, audio: <base64>, mime_type, usage}`) and SSE of `speech.audio.delta` events; the
openai SDK asks for the audio's bytes (`Accept: application/octet-stream`). The emulator answers
the bytes when the request's `Accept` asks for them (an octet stream or `audio/*`), ZenMux's JSON
otherwise. The audio reads the rule's `content` when a rule gives one, else the request's input."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.media.fields import DONE, event
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.faces.speech.audio import MIME, duration_s, encode, samples
from zenmux_emulator.faces.speech.request import SpeechRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

ROUTE = "/api/v1/audio/speech"
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


def audio_of(text: str, request: SpeechRequest) -> tuple[bytes, float]:
    """The encoded audio reading `text` and its length in seconds, encoded in a thread by `prepare`
    beforehand, else now."""

    def make() -> tuple[bytes, float]:
        pcm = samples(text, request.voice, request.speed)
        return encode(pcm, request.response_format), duration_s(pcm)

    if request.response_format in ON_LOOP:
        return make()
    return SPOKEN.get((text, request.voice, request.speed, request.response_format), make)


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
        if request.response_format in ON_LOOP:
            return None
        text = spoken(draft, request)
        return lambda: audio_of(text, request)

    def render(self, draft: Draft, exchange: Exchange[SpeechRequest]) -> ReplyPlan:
        request, ctx = exchange.ask, exchange.ctx
        audio, seconds = audio_of(spoken(draft, request), request)
        output = max(round(seconds * AUDIO_TOKENS_PER_S), 1)
        usage = {"input_tokens": request.prompt_tokens, "output_tokens": output}
        usage["total_tokens"] = usage["input_tokens"] + output
        billed = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": output,
            "total_tokens": usage["total_tokens"],
        }
        mime = MIME[request.response_format]
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
