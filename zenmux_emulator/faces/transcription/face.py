"""The transcription face (ZenMux's docs_source/en/api/openai/create-audio-transcriptions.md, and the
openai SDK's `response_format`s): the text is the rule's `content` (or its `transcript.segments`,
`reply.py`), else the default reply's deterministic text, timed evenly across the audio's length
unless the rule times its segments and words itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.media.fields import DONE, event
from zenmux_emulator.faces.transcription import timing
from zenmux_emulator.faces.transcription.reply import TranscriptReply
from zenmux_emulator.faces.transcription.request import TranscriptionRequest, parse_request
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.metered import METERED, meter
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

TEXT = "text/plain; charset=utf-8"


def usage_of(request: TranscriptionRequest, said: timing.Said) -> dict[str, Any]:
    output = tokens.count(said.text)
    return {
        "type": "tokens",
        "input_tokens": request.prompt_tokens,
        "output_tokens": output,
        "total_tokens": request.prompt_tokens + output,
        "seconds": round(said.seconds, 3),
    }


def transcript_of(draft: Draft, request: TranscriptionRequest) -> tuple[timing.Said, str]:
    """What is said and in which language: the rule's `transcript` where it gives them, else the
    rule's content (or the default text) timed evenly across the audio."""
    spec = draft.spec
    script = spec.transcript if isinstance(spec, TranscriptReply) else None
    if script is None:
        return timing.evenly((draft.content or "").strip(), request.seconds), request.language
    seconds = request.seconds if script.duration is None else script.duration
    language = script.language or request.language
    if script.segments:
        return timing.scripted(script.segments, seconds), language
    return timing.evenly((draft.content or "").strip(), seconds), language


def verbose(request: TranscriptionRequest, said: timing.Said, language: str) -> dict[str, Any]:
    seconds = said.seconds
    body: dict[str, Any] = {
        "task": "transcribe",
        "language": language,
        "duration": round(seconds, 3),
        "text": said.text,
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
            for i, s in enumerate(said.segments)
        ]
    if "word" in request.granularities:
        body["words"] = [{"word": w.text, "start": w.start, "end": w.end} for w in said.words]
    return body


def body_of(
    request: TranscriptionRequest, said: timing.Said, language: str, usage: dict[str, Any]
) -> tuple[bytes, str]:
    """The answer's bytes and content type in the asked `response_format`."""
    kind = request.response_format
    if kind == "text":
        return (said.text + "\n").encode(), TEXT
    if kind == "srt":
        return timing.srt(said.segments).encode(), TEXT
    if kind == "vtt":
        return timing.vtt(said.segments).encode(), TEXT
    if kind == "verbose_json":
        return orjson.dumps(verbose(request, said, language)), "application/json"
    return orjson.dumps({"text": said.text, "model": request.requested_model, "usage": usage}), "application/json"


class TranscriptionFace:
    """Parse, render and error envelope of the transcriptions API."""

    name = "transcription"

    def parse(self, body: object, ctx: FaceContext) -> TranscriptionRequest:
        return parse_request(body, ctx.headers)

    def render(self, draft: Draft, exchange: Exchange[TranscriptionRequest]) -> ReplyPlan:
        request = exchange.ask
        said, language = transcript_of(draft, request)
        usage = usage_of(request, said)
        billed = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
            METERED: [meter("audio", "perSecond", usage["seconds"])],
        }
        sent = {**draft.headers, **exchange.headers}
        if request.stream:
            events = Events.paced_but_last(lambda: _events(said.text, usage), 2)
            return sse_plan(sent, events, None, None, b"", None, usage=billed)
        body, content_type = body_of(request, said, language, usage)
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
