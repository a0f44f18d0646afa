"""How the client verdict reads Anthropic Messages: `tool_use` blocks of the reply (the message,
or the `content_block_start` events) answered by `tool_result` blocks naming their `tool_use_id`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes, event_data, json_or_none


def _call(block: Any) -> Call | None:
    if not isinstance(block, dict) or block.get("type") != "tool_use" or not isinstance(block.get("id"), str):
        return None
    return block["id"], str(block.get("name", ""))


def calls(entry: JournalEntry) -> list[Call | None]:
    if isinstance(entry.response, bytes):
        body = json_or_none(entry.response)
        return [_call(b) for b in (body.get("content") or () if isinstance(body, dict) else ())]
    return [_call(data.get("content_block")) for data in event_data(entry) if data.get("type") == "content_block_start"]


def answers(body: dict[str, Any]) -> Iterator[Any]:
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                yield block.get("tool_use_id")


READERS = Shapes(calls, answers)
