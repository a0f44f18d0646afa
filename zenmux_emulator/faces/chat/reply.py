"""Turn a draft into a ReplyPlan: a JSON body, or SSE events (made as they are written) with their
pacing and faults."""

from __future__ import annotations

from functools import partial

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.chat.chunks import stream_events
from zenmux_emulator.faces.chat.completion import completion_body
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.scenario.schema import StreamFault
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

MALFORMED_EVENT = b'data: {"id": "malformed", "choices": [{"delta": {"content": "unterminated\n\n'


def _error_event(fault: StreamFault, completion_id: str, created: int, model: str) -> bytes:
    """The in-stream failure: a chunk with a top-level `error` {code, message} and a choice whose
    finish_reason is `error` (the shape OpenRouter-style clients, ZenMux's own among them, read)."""
    chunk = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "error": {"code": fault.code, "message": fault.message},
        "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}],
    }
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def plan_reply(
    draft: Draft,
    completion_id: str,
    created: int,
    stream: bool,
    include_usage: bool,
    top_logprobs: int | None,
    headers: dict[str, str],
    seed: int,
) -> ReplyPlan:
    """The finished reply; `headers` are added to the draft's scripted ones."""
    all_headers = {**draft.headers, **headers} if draft.headers else headers
    if not stream:
        return ReplyPlan(all_headers, completion_body(draft, completion_id, created, top_logprobs))
    timing = draft.timing
    events = Events.paced_but_last(  # the usage chunk and [DONE] follow the finish chunk at once
        partial(stream_events, draft, completion_id, created, include_usage, top_logprobs),  # lighter than a closure
        2 if include_usage else 1,
    )
    return sse_plan(
        all_headers,
        events,
        schedule(timing, seed_int(seed, "pace", completion_id)),
        timing.fault if timing else None,
        MALFORMED_EVENT,
        lambda fault, _: _error_event(fault, completion_id, created, draft.model),
    )
