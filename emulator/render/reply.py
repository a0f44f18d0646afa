"""Turn a draft into a ReplyPlan: a JSON body, or SSE events with their pacing."""

from __future__ import annotations

from emulator.render.chunks import stream_events
from emulator.render.completion import completion_body
from emulator.render.draft import Draft
from emulator.render.plan import ReplyPlan


def plan_reply(
    draft: Draft,
    completion_id: str,
    created: int,
    *,
    stream: bool,
    include_usage: bool,
    top_logprobs: int | None,
    headers: dict[str, str],
) -> ReplyPlan:
    """The finished reply; `headers` are added to the draft's scripted ones."""
    all_headers = {**draft.headers, **headers}
    if not stream:
        return ReplyPlan(headers=all_headers, body=completion_body(draft, completion_id, created, top_logprobs))
    timing = draft.timing
    events = stream_events(
        draft, completion_id, created,
        include_usage=include_usage,
        top_logprobs=top_logprobs,
    )
    return ReplyPlan(
        headers=all_headers,
        events=events,
        first_wait_s=(timing.first_token_ms / 1000) if timing else 0.0,
        gap_s=(timing.chunk_ms / 1000) if timing else 0.0,
        paced=len(events) - (2 if include_usage else 1),
        content_type="text/event-stream",
    )
