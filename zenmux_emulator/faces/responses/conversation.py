"""Responses input items as the neutral conversation reads them, and as `input_items` lists them.

Items become chat-shaped messages, so the facts rules match on (`turn`, `tool_result`, …) and the
check of passed-back reasoning (`core.draft.passback`) read them exactly as on the chat face:

- a message item is a message of its role (text parts joined by newlines);
- reasoning, assistant message and call items in a row are one assistant turn: its text, its
  `tool_calls` (`{"id": call_id, "type": "function"|"custom", …}`) and its `reasoning_details`
  (the summary, and the encrypted content as a `reasoning.encrypted` block with the item's id);
- a `function_call_output` or `custom_tool_call_output` is a `tool` message for its call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from zenmux_emulator.core.draft.reasoning import OPENAI_FORMAT
from zenmux_emulator.foundation.ids import digest

TEXT_PARTS = ("input_text", "output_text", "text")


def part_text(content: object) -> str:
    """The text of a message's content or a tool's output: a string, or its text and refusal parts."""
    if isinstance(content, str):
        return content
    texts = []
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict):
            text = part.get("text", part.get("refusal"))
            if isinstance(text, str):
                texts.append(text)
    return "\n".join(texts)


def non_text_parts(content: object) -> int:
    """How many parts of a content list are not text (images, files, audio)."""
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") not in (*TEXT_PARTS, "refusal"))


def as_items(value: object) -> list[dict[str, Any]]:
    """The request's `input` as a list of items: a string is one user message."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _call(item: Mapping[str, Any]) -> dict[str, Any]:
    if item.get("type") == "custom_tool_call":
        return {"id": item["call_id"], "type": "custom", "custom": {"name": item["name"], "input": item["input"]}}
    return {
        "id": item["call_id"],
        "type": "function",
        "function": {"name": item["name"], "arguments": item["arguments"]},
    }


def _reasoning_details(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    details: list[dict[str, Any]] = []
    summary = "\n".join(s.get("text", "") for s in item.get("summary") or () if isinstance(s, dict))
    if summary:
        details.append({"type": "reasoning.summary", "summary": summary, "format": OPENAI_FORMAT, "index": "0"})
    if isinstance(item.get("encrypted_content"), str):
        details.append(
            {
                "id": item.get("id") or "",
                "type": "reasoning.encrypted",
                "data": item["encrypted_content"],
                "format": OPENAI_FORMAT,
                "index": "0",
            }
        )
    return details


def to_messages(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as chat-shaped messages (see the module's docstring)."""
    messages: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None  # the assistant turn being built, until something else comes

    def assistant() -> dict[str, Any]:
        nonlocal turn
        if turn is None:
            turn = {"role": "assistant", "content": ""}
            messages.append(turn)
        return turn

    for item in items:
        kind = item.get("type", "message")
        if kind == "reasoning":
            details = _reasoning_details(item)
            if details:
                assistant().setdefault("reasoning_details", []).extend(details)
        elif kind in ("function_call", "custom_tool_call"):
            assistant().setdefault("tool_calls", []).append(_call(item))
        elif kind == "message" and item.get("role") == "assistant":
            current = assistant()
            text = part_text(item.get("content"))
            current["content"] = f"{current['content']}\n{text}" if current["content"] else text
        elif kind == "message":
            turn = None
            messages.append(
                {
                    "role": item.get("role", "user"),
                    "content": part_text(item.get("content")),
                    "parts": non_text_parts(item.get("content")),
                }
            )
        elif kind in ("function_call_output", "custom_tool_call_output"):
            turn = None
            messages.append(
                {"role": "tool", "tool_call_id": item.get("call_id"), "content": part_text(item.get("output"))}
            )
    return messages


_PREFIXES = {
    "message": "msg",
    "function_call": "fc",
    "function_call_output": "fco",
    "reasoning": "rs",
    "custom_tool_call": "ctc",
    "custom_tool_call_output": "ctco",
    "item_reference": "ref",
    "web_search_call": "ws",
}


def _content_parts(role: str, content: object) -> list[Any]:
    if not isinstance(content, str):
        return list(content) if isinstance(content, list) else []
    if role == "assistant":
        return [{"type": "output_text", "text": content, "annotations": []}]
    return [{"type": "input_text", "text": content}]


def listed_item(item: Mapping[str, Any], response_id: str, position: int) -> dict[str, Any]:
    """An input item as `GET …/input_items` lists it: with an id (its own, else one made from the
    response id and its position), a `type`, a status, and message content as parts. Made when a
    page is read, for the items on it: a response keeps its input as it came (listing 16,384
    items, a hash each, held the event loop of the request that stored them)."""
    kind = item.get("type", "message")
    entry = {**item, "type": kind}
    if not isinstance(entry.get("id"), str):
        entry["id"] = f"{_PREFIXES.get(kind, 'item')}_{digest(response_id, 'input', position, size=24)}"
    if kind == "message":
        entry["content"] = _content_parts(str(entry.get("role")), entry.get("content"))
    if kind in ("message", "function_call", "function_call_output"):
        entry.setdefault("status", "completed")
    if kind == "reasoning":
        entry.setdefault("summary", [])
    return entry


def listed(items: Sequence[Mapping[str, Any]], response_id: str, ascending: bool = True) -> Iterator[dict[str, Any]]:
    """The input items as `GET …/input_items` lists them (`listed_item`), oldest or newest first,
    each made as it is read."""
    positions = range(len(items)) if ascending else range(len(items) - 1, -1, -1)
    return (listed_item(items[i], response_id, i) for i in positions)
