"""How the client verdict reads generateContent: `functionCall` parts of the reply (one JSON
response, Google's JSON array, or SSE events) answered by `functionResponse` parts, by id or name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes


def calls(entry: JournalEntry) -> list[Call | None]:
    """(id or name, name) of the function calls in the reply, JSON, JSON array or SSE events."""
    found: list[Call | None] = []
    for response in _responses(entry):
        for candidate in response.get("candidates") or ():
            for part in (candidate.get("content") or {}).get("parts") or ():
                call = part.get("functionCall") if isinstance(part, dict) else None
                if isinstance(call, dict) and isinstance(call.get("name"), str):
                    found.append((str(call.get("id") or call["name"]), call["name"]))
    return found


def _responses(entry: JournalEntry) -> Iterator[dict[str, Any]]:
    if isinstance(entry.response, bytes):
        try:
            body = orjson.loads(entry.response)
        except orjson.JSONDecodeError:
            return
        yield from (r for r in (body if isinstance(body, list) else [body]) if isinstance(r, dict))
        return
    for event in entry.response or ():
        data = event.removeprefix(b"data: ").strip() if isinstance(event, bytes) else b""
        try:
            parsed = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            yield parsed


def answers(body: dict[str, Any]) -> Iterator[Any]:
    for content in body.get("contents") or ():
        for part in (content.get("parts") or ()) if isinstance(content, dict) else ():
            answer = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(answer, dict):
                yield answer.get("id") or answer.get("name")


READERS = Shapes(calls, answers)
