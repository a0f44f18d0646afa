"""The recorder's decoder of the Responses API: a `response` object, or its typed-event stream (whose
last event carries the whole response), as a scenario reply (`FaceSpec.decoder`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zenmux_emulator.core.neutral.recorded import Collected, Event, ReplyDecoder, answer_holding, counts, stream_error

FINAL_EVENTS = ("response.completed", "response.incomplete")
TEXT_DELTAS = frozenset(
    {"response.output_text.delta", "response.refusal.delta", "response.reasoning_summary_text.delta"}
)
ARGUMENT_DELTAS = frozenset({"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"})
PACED = TEXT_DELTAS | ARGUMENT_DELTAS
"""The events a Responses stream paces (the emulator's `stream:` waits fall before these)."""


INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""`incomplete_details.reason` as the finish reason it stands for."""


def body(parsed: object) -> Collected | None:
    answer = answer_holding(parsed, "output")
    return None if answer is None else _response(answer)


def _item(c: Collected, item: dict[str, Any], texts: list[str]) -> None:
    """One output item into the reply: reasoning, message text or refusal, or a call."""
    kind = item.get("type")
    if kind == "reasoning":
        c.reasoning = "".join(part.get("text", "") for part in item.get("summary") or [])
        c.shape = "openai"
        if isinstance(item.get("encrypted_content"), str):
            c.encrypted = {"id": str(item.get("id", "")), "data": item["encrypted_content"]}
    elif kind == "message":
        for part in item.get("content") or []:
            if part.get("type") == "output_text":
                texts.append(part.get("text", ""))
            elif part.get("type") == "refusal":
                c.refusal = (c.refusal or "") + part.get("refusal", "")
    elif kind == "function_call":
        c.add_call(item.get("call_id", ""), item.get("name", ""), item.get("arguments", ""))
    elif kind == "custom_tool_call":
        c.add_call(item.get("call_id", ""), item.get("name", ""), custom=item.get("input", ""))


def _response(answer: dict[str, Any]) -> Collected:
    c = Collected(model=answer.get("model"))
    texts: list[str] = []
    for item in answer.get("output") or []:
        _item(c, item, texts)
    if texts:
        c.content = "".join(texts)
    reason = (answer.get("incomplete_details") or {}).get("reason")
    named = INCOMPLETE.get(reason) if isinstance(reason, str) else None
    c.finish_reason = named or ("tool_calls" if c.tool_calls else "stop")
    usage = answer.get("usage")
    if isinstance(usage, dict):
        c.usage = counts(
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            (usage.get("output_tokens_details") or {}).get("reasoning_tokens"),
            (usage.get("input_tokens_details") or {}).get("cached_tokens"),
        )
    if isinstance(answer.get("service_tier"), str) and answer["service_tier"] != "default":
        c.service_tier = answer["service_tier"]
    return c


def stream(events: Sequence[Event]) -> Collected:
    final: dict[str, Any] | None = None
    fault: dict[str, Any] | None = None
    text: list[str] = []
    arguments: list[str] = []
    for n, event in enumerate(events):
        data = event.json()
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind in TEXT_DELTAS:
            text.append(str(data.get("delta", "")))
        elif kind in ARGUMENT_DELTAS:
            arguments.append(str(data.get("delta", "")))
        elif kind in FINAL_EVENTS or kind == "response.failed":
            final = data.get("response") if isinstance(data.get("response"), dict) else final
        elif kind == "error" and fault is None:
            fault = stream_error(n, data.get("code") or "server_error", data.get("message", ""))
    c = _response(final or {})
    if fault is not None:
        c.fault = fault
        c.content = "".join(text) or c.content
    c.text_pieces, c.argument_pieces = text, arguments
    return c


DECODER = ReplyDecoder(body, stream, lambda event: event.name in PACED)
