"""The transcription face (ZenMux's docs_source/en/api/openai/create-audio-transcriptions.md, and the
openai SDK's `response_format`s): the text is the rule's `content`, else the default reply's
deterministic text, timed evenly across the audio's length."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.media.fields import DONE, event
from zenmux_emulator.faces.transcription import timing
from zenmux_emulator.faces.transcription.request import TranscriptionRequest, parse_request
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

ROUTE = "/api/v1/audio/transcriptions"
TEXT = "text/plain; charset=utf-8"


def usage_of(request: TranscriptionRequest, text: str) -> dict[str, Any]:
    output = tokens.count(text)
    return {
        "type": "tokens",
        "input_tokens": request.prompt_tokens,
        "output_tokens": output,
        "total_tokens": request.prompt_tokens + output,
        "seconds": round(request.seconds, 3),
    }


def verbose(request: TranscriptionRequest, text: str) -> dict[str, Any]:
    seconds = request.seconds
    body: dict[str, Any] = {
        "task": "transcribe",
        "language": request.language,
        "duration": round(seconds, 3),
        "text": text,
        "usage": {"type": "duration", "seconds": round(seconds, 3)},
    }
    if "segment" in request.granularities:
        body["segments"] = [
            {
                "id": i,
                "seek": 0,
                "start": s.start,
                "end": s.end,
                "text": s.text,
                "tokens": [],
                "temperature": 0.0,
                "avg_logprob": -0.1,
                "compression_ratio": 1.0,
                "no_speech_prob": 0.0,
            }
            for i, s in enumerate(timing.segments(text, seconds))
        ]
    if "word" in request.granularities:
        body["words"] = [{"word": w.text, "start": w.start, "end": w.end} for w in timing.words(text, seconds)]
    return body


def body_of(request: TranscriptionRequest, text: str, usage: dict[str, Any]) -> tuple[bytes, str]:
    """The answer's bytes and content type in the asked `response_format`."""
    kind = request.response_format
    if kind == "text":
        return (text + "\n").encode(), TEXT
    if kind == "srt":
        return timing.srt(text, request.seconds).encode(), TEXT
    if kind == "vtt":
        return timing.vtt(text, request.seconds).encode(), TEXT
    if kind == "verbose_json":
        return orjson.dumps(verbose(request, text)), "application/json"
    return orjson.dumps({"text": text, "model": request.requested_model, "usage": usage}), "application/json"


class TranscriptionFace:
    """Parse, render and error envelope of the transcriptions API."""

    name = "transcription"

    def parse(self, body: object, ctx: FaceContext) -> TranscriptionRequest:
        return parse_request(body, ctx.headers)

    def render(self, draft: Draft, exchange: Exchange[TranscriptionRequest]) -> ReplyPlan:
        request = exchange.ask
        text = (draft.content or "").strip()
        usage = usage_of(request, text)
        billed = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
        }
        sent = {**draft.headers, **exchange.headers}
        if request.stream:
            events = Events.paced_but_last(lambda: _events(text, usage), 2)
            return sse_plan(sent, events, None, None, b"", None, usage=billed)
        body, content_type = body_of(request, text, usage)
        plan = ReplyPlan(sent, body, content_type=content_type)
        plan.usage = billed
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)


def _events(text: str, usage: dict[str, Any]) -> Iterator[bytes]:
    said = text.split(" ")
    for i, word in enumerate(said):
        yield event({"type": "transcript.text.delta", "delta": word if i == 0 else " " + word})
    yield event({"type": "transcript.text.done", "text": text, "usage": usage})
    yield DONE


TRANSCRIPTION = TranscriptionFace()
