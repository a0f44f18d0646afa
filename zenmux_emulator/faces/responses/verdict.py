"""How the client verdict reads the Responses API: `function_call` and `custom_tool_call` items
of the reply answered by `*_output` items with the same `call_id`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes, event_data, json_or_none

CALLS = frozenset({"function_call", "custom_tool_call"})
ANSWERS = frozenset({"function_call_output", "custom_tool_call_output"})


def _call(item: Any) -> Call | None:
    if not isinstance(item, dict) or item.get("type") not in CALLS or not isinstance(item.get("call_id"), str):
        return None
    return item["call_id"], str(item.get("name", ""))


def calls(entry: JournalEntry) -> list[Call | None]:
    """The call items of the `response` JSON, or of the `response.output_item.done` events (each
    item the client got whole; a stream cut before an item is done did not hand it over)."""
    if isinstance(entry.response, bytes):
        body = json_or_none(entry.response)
        return [_call(i) for i in (body.get("output") or () if isinstance(body, dict) else ())]
    return [_call(data.get("item")) for data in event_data(entry) if data.get("type") == "response.output_item.done"]


def answers(body: dict[str, Any]) -> Iterator[Any]:
    items = body.get("input")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("type") in ANSWERS:
            yield item.get("call_id")


READERS = Shapes(calls, answers)
