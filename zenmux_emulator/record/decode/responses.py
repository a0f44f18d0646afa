"""The Responses API: a `response` object, or its typed-event stream (whose last event carries
the whole response)."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.record.capture.exchange import Event
from zenmux_emulator.record.decode.collected import Collected, counts

FINAL_EVENTS = ("response.completed", "response.incomplete")
TEXT_DELTAS = frozenset(
    {"response.output_text.delta", "response.refusal.delta", "response.reasoning_summary_text.delta"}
)
ARGUMENT_DELTAS = frozenset({"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"})
PACED = TEXT_DELTAS | ARGUMENT_DELTAS
"""The events a Responses stream paces (the emulator's `stream:` waits fall before these)."""


def body(answer: dict[str, Any]) -> Collected:
    c = Collected(model=answer.get("model"))
    texts: list[str] = []
    for item in answer.get("output") or []:
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
    if texts:
        c.content = "".join(texts)
    reason = (answer.get("incomplete_details") or {}).get("reason")
    c.finish_reason = (
        "length"
        if reason == "max_output_tokens"
        else "content_filter"
        if reason == "content_filter"
        else "tool_calls"
        if c.tool_calls
        else "stop"
    )
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


def stream(events: list[Event]) -> Collected:
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
            fault = {
                "kind": "error",
                "after_chunks": n,
                "code": str(data.get("code") or "server_error"),
                "message": str(data.get("message", "")),
            }
    c = body(final or {})
    if fault is not None:
        c.fault = fault
        c.content = "".join(text) or c.content
    c.text_pieces, c.argument_pieces = text, arguments
    return c
