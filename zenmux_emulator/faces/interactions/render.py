"""A draft as an Interactions reply: the `interaction` JSON, or its SSE events.

The interaction's `steps` are the model's: a `thought` step (its summary, when the draft reasons),
a `model_output` step of `text` content, then one `function_call` step per tool call (`arguments`
an object, as Google sends them). A reply of calls is `requires_action`, one cut by the token limit
`incomplete`, any other `completed`.

The stream is `interaction.created` (the interaction in progress, no steps), an
`interaction.status_update` to `in_progress`, each step as `step.start`, its `step.delta`s (text
paced as the rule's `stream:` says; a call's arguments as one `arguments_delta`) and `step.stop`,
then `interaction.status_update` to the final status and `interaction.completed` with the whole
interaction and its usage. Every event is `event: <event_type>` and `data: <json>` whose
`event_type` names it, with an `event_id` counting from 0 (google-genai reads `data`'s
`event_type`). A scripted `error` stream fault sends an `error` event (`code`, `message`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.interactions.request import InteractionsRequest
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.scenario.schema import StreamFault, StreamTiming
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

MALFORMED_EVENT = b'event: step.delta\ndata: {"event_type": "step.delta", "delta": {"type": "text", "text": "unterm\n\n'

Event = tuple[str, bool, dict[str, Any]]
"""An event before it is numbered: its type, whether it is paced (the text deltas), its fields."""


def interaction_id(generation: str) -> str:
    """`v1_` and the generation id: the body's `id`, deterministic like every other id."""
    return "v1_" + generation


def rfc3339(created: int) -> str:
    """Whole seconds on the emulator's clock as RFC 3339 (`2026-07-03T12:25:15Z`)."""
    return datetime.fromtimestamp(created, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def steps_of(draft: Draft) -> list[dict[str, Any]]:
    """The model's steps, in order: thought, model output, function calls."""
    steps: list[dict[str, Any]] = []
    if draft.reasoning:
        steps.append({"type": "thought", "summary": [{"type": "text", "text": draft.reasoning}]})
    text = draft.content or draft.refusal or ""
    if text or not draft.tool_calls:
        steps.append({"type": "model_output", "content": [{"type": "text", "text": text}]})
    for call in draft.tool_calls:
        function = call.get("function") or {}
        steps.append(
            {
                "type": "function_call",
                "id": str(call.get("id", "")),
                "name": str(function.get("name", "")),
                "arguments": _arguments(str(function.get("arguments", ""))),
            }
        )
    return steps


def status_of(draft: Draft) -> str:
    if draft.finish_reason == "length":
        return "incomplete"
    if draft.tool_calls:
        return "requires_action"
    return "completed"


def usage_of(draft: Draft, request: InteractionsRequest) -> dict[str, Any]:
    """The chat-shaped usage in the Interactions shape: output tokens without the thoughts."""
    usage = draft.usage
    prompt, thoughts = usage["prompt_tokens"], usage["completion_tokens_details"]["reasoning_tokens"]
    media = min(request.media_tokens, prompt)
    by_modality = [{"modality": "text", "tokens": prompt - media}]
    if media:
        by_modality.append({"modality": "image", "tokens": media})
    return {
        "total_input_tokens": prompt,
        "input_tokens_by_modality": by_modality,
        "total_cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
        "total_output_tokens": usage["completion_tokens"] - thoughts,
        "total_thought_tokens": thoughts,
        "total_tokens": usage["total_tokens"],
    }


def interaction(
    iid: str, model: str, created: int, status: str, steps: list[dict[str, Any]] | None, usage: dict[str, Any] | None
) -> dict[str, Any]:
    """The interaction object; `steps` and `usage` left out while it is in progress."""
    stamp = rfc3339(created)
    body: dict[str, Any] = {
        "id": iid,
        "model": model,
        "object": "interaction",
        "status": status,
        "created": stamp,
        "updated": stamp,
    }
    if steps is not None:
        body["steps"] = steps
    if usage is not None:
        body["usage"] = usage
    return body


def frame(kind: str, number: int, fields: dict[str, Any]) -> bytes:
    data = orjson.dumps({"event_type": kind, **fields, "event_id": str(number)})
    return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"


def _pieces(text: str, chunk_tokens: int) -> Iterator[str]:
    if not text:
        yield ""
    for group in tokens.groups(text, chunk_tokens):
        yield "".join(group)


def _step(index: int, step: dict[str, Any], chunk_tokens: int) -> Iterator[Event]:
    kind = step["type"]
    if kind == "function_call":
        yield "step.start", False, {"index": index, "step": {**step, "arguments": {}}}
        delta = {"type": "arguments_delta", "arguments": orjson.dumps(step["arguments"]).decode()}
        yield "step.delta", False, {"index": index, "delta": delta}
    elif kind == "thought":
        yield "step.start", False, {"index": index, "step": {"type": "thought"}}
        for piece in _pieces(step["summary"][0]["text"], chunk_tokens):
            yield (
                "step.delta",
                True,
                {"index": index, "delta": {"type": "thought_summary", "content": {"type": "text", "text": piece}}},
            )
    else:
        yield "step.start", False, {"index": index, "step": {"type": "model_output"}}
        for piece in _pieces(step["content"][0]["text"], chunk_tokens):
            yield "step.delta", True, {"index": index, "delta": {"type": "text", "text": piece}}
    yield "step.stop", False, {"index": index}


def _unnumbered(opening: dict[str, Any], final: dict[str, Any], timing: StreamTiming | None) -> Iterator[Event]:
    chunk_tokens = timing.chunk_tokens if timing else 1
    iid = final["id"]
    yield "interaction.created", False, {"interaction": opening}
    yield "interaction.status_update", False, {"interaction_id": iid, "status": "in_progress"}
    for index, step in enumerate(final["steps"]):
        yield from _step(index, step, chunk_tokens)
    yield "interaction.status_update", False, {"interaction_id": iid, "status": final["status"]}
    yield "interaction.completed", False, {"interaction": final}


def stream_events(
    opening: dict[str, Any], final: dict[str, Any], timing: StreamTiming | None
) -> Iterator[tuple[bytes, bool]]:
    """Every event of the stream, numbered, made when it is asked for, with whether it is paced."""
    for number, (kind, paced, fields) in enumerate(_unnumbered(opening, final, timing)):
        yield frame(kind, number, fields), paced


def stream_plan(
    opening: dict[str, Any], final: dict[str, Any], timing: StreamTiming | None, headers: dict[str, str], seed: int
) -> ReplyPlan:
    events = Events(lambda: stream_events(opening, final, timing))

    def failure(fault: StreamFault, at: int) -> bytes:
        return frame("error", at, {"error": {"code": fault.code, "message": fault.message}})

    return sse_plan(
        headers,
        events,
        schedule(timing, seed_int(seed, "pace", final["id"])),
        timing.fault if timing else None,
        MALFORMED_EVENT,
        failure,
    )
