"""How the client verdict reads chat completions: `tool_calls` of the reply (the message, or the
chunks' deltas) answered by `tool` messages naming their `tool_call_id`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes, event_data, json_or_none


def _call(call: Any) -> Call | None:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return None
    return call["id"], (call.get(call.get("type", "function")) or {}).get("name", "")


def calls(entry: JournalEntry) -> list[Call | None]:
    if isinstance(entry.response, bytes):
        body = json_or_none(entry.response)
        try:
            message = body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return []
        return [_call(c) for c in message.get("tool_calls") or ()]
    return [
        _call(call)
        for data in event_data(entry)
        for choice in data.get("choices") or ()
        for call in (choice.get("delta") or {}).get("tool_calls") or ()
    ]


def answers(body: dict[str, Any]) -> Iterator[Any]:
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "tool":
            yield message.get("tool_call_id")


READERS = Shapes(calls, answers)
