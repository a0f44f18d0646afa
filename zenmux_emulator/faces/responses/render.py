"""A Responses reply as a ReplyPlan: the `response` JSON, or typed SSE events.

Each event is `event: <type>` and `data: <json>` with that `type` and a `sequence_number` from 0.
The stream opens with `response.created` and `response.in_progress`; every output item follows
as `response.output_item.added`, its parts and deltas, and `response.output_item.done` (which
Codex builds its output from); `response.completed` (or `response.incomplete`) ends it with the
whole `output` (which the Agents SDK reads). Deltas are paced as the rule's `stream:` says; a
scripted `error` fault sends an `error` event and `response.failed` in place of the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.scenario.schema import StreamFault, StreamTiming
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

MALFORMED_EVENT = (
    b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "unterminated\n\n'
)


Event = tuple[str, bool, dict[str, Any]]
"""An event before it is numbered: its type, whether it is paced (the deltas), its fields."""


def event(kind: str, paced: bool = False, **fields: Any) -> Event:
    return kind, paced, fields


def frame(kind: str, sequence: int, fields: dict[str, Any]) -> bytes:
    data = orjson.dumps({"type": kind, "sequence_number": sequence, **fields})
    return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"


def _pieces(text: str, chunk_tokens: int) -> Iterator[str]:
    if not text:
        yield ""  # an empty text still gets its one delta
    for group in tokens.groups(text, chunk_tokens):
        yield "".join(group)


def _reasoning(item: dict[str, Any], index: int, chunk_tokens: int) -> Iterator[Event]:
    where = {"item_id": item["id"], "output_index": index}
    yield event("response.output_item.added", output_index=index, item={**item, "summary": []})
    for n, part in enumerate(item["summary"]):
        yield event(
            "response.reasoning_summary_part.added", **where, summary_index=n, part={"type": "summary_text", "text": ""}
        )
        for piece in _pieces(part["text"], chunk_tokens):
            yield event("response.reasoning_summary_text.delta", True, **where, summary_index=n, delta=piece)
        yield event("response.reasoning_summary_text.done", **where, summary_index=n, text=part["text"])
        yield event("response.reasoning_summary_part.done", **where, summary_index=n, part=part)


def _message(item: dict[str, Any], index: int, chunk_tokens: int) -> Iterator[Event]:
    yield event("response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []})
    for n, part in enumerate(item["content"]):
        where = {"item_id": item["id"], "output_index": index, "content_index": n}
        if part["type"] == "output_text":
            yield event(
                "response.content_part.added",
                **where,
                part={"type": "output_text", "text": "", "annotations": [], "logprobs": []},
            )
            for piece in _pieces(part["text"], chunk_tokens):
                yield event("response.output_text.delta", True, **where, delta=piece, logprobs=[])
            for n_note, note in enumerate(part["annotations"]):
                yield event("response.output_text.annotation.added", **where, annotation_index=n_note, annotation=note)
            yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
        else:
            yield event("response.content_part.added", **where, part={"type": "refusal", "refusal": ""})
            for piece in _pieces(part["refusal"], chunk_tokens):
                yield event("response.refusal.delta", True, **where, delta=piece)
            yield event("response.refusal.done", **where, refusal=part["refusal"])
        yield event("response.content_part.done", **where, part=part)


def _call(item: dict[str, Any], index: int, argument_chars: int) -> Iterator[Event]:
    custom = item["type"] == "custom_tool_call"
    field = "input" if custom else "arguments"
    kind = "response.custom_tool_call_input" if custom else "response.function_call_arguments"
    yield event("response.output_item.added", output_index=index, item={**item, "status": "in_progress", field: ""})
    text = item[field]
    where = {"item_id": item["id"], "output_index": index}
    for i in range(0, len(text), argument_chars):
        yield event(f"{kind}.delta", True, **where, delta=text[i : i + argument_chars])
    done = {"name": item["name"]} if not custom else {}
    yield event(f"{kind}.done", **where, **done, **{field: text})


def _unnumbered(opening: dict[str, Any], final: dict[str, Any], timing: StreamTiming | None) -> Iterator[Event]:
    chunk_tokens = timing.chunk_tokens if timing else 1
    argument_chars = timing.argument_chars if timing else 16
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(final["output"]):
        if item["type"] == "reasoning":
            yield from _reasoning(item, index, chunk_tokens)
        elif item["type"] == "message":
            yield from _message(item, index, chunk_tokens)
        else:
            yield from _call(item, index, argument_chars)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.incomplete" if final["status"] == "incomplete" else "response.completed", response=final)


def stream_events(
    opening: dict[str, Any], final: dict[str, Any], timing: StreamTiming | None
) -> Iterator[tuple[bytes, bool]]:
    """Every event of the stream, numbered, each made when it is asked for, with whether it is
    paced; `opening` is the response in progress, `final` the finished one."""
    for sequence, (kind, paced, fields) in enumerate(_unnumbered(opening, final, timing)):
        yield frame(kind, sequence, fields), paced


def stream_plan(
    opening: dict[str, Any],
    final: dict[str, Any],
    failed: dict[str, Any] | None,
    timing: StreamTiming | None,
    headers: dict[str, str],
    seed: int,
) -> ReplyPlan:
    """The streamed reply; `failed` is the `response.failed` response a scripted error fault sends."""
    events = Events(lambda: stream_events(opening, final, timing))

    def failure(fault: StreamFault, at: int) -> bytes:
        return frame("error", at, {"code": fault.code, "message": fault.message, "param": None}) + frame(
            "response.failed", at + 1, {"response": failed}
        )

    return sse_plan(
        headers,
        events,
        schedule(timing, seed_int(seed, "pace", final["id"])),
        timing.fault if timing else None,
        MALFORMED_EVENT,
        failure if failed is not None else None,
    )


def json_plan(response: dict[str, Any], headers: dict[str, str]) -> ReplyPlan:
    return ReplyPlan(headers=headers, body=orjson.dumps(response))
