"""A journal entry as one row of the inspector's list: what a person scans for (face, model,
rule or UNMATCHED, status, timings, tokens), read from any face's entry without knowing the face."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.core.journal.entry import NO_MATCH

PROMPT = ("prompt_tokens", "input_tokens", "promptTokenCount")
COMPLETION = ("completion_tokens", "output_tokens", "candidatesTokenCount")
REASONING = ("reasoning_tokens", "thoughtsTokenCount")
DETAILS = ("completion_tokens_details", "output_tokens_details")
USAGE = ("usage", "usageMetadata")


def unmatched(entry: dict[str, Any]) -> bool:
    """`JournalEntry.unmatched`, read off the entry's JSON object."""
    return (
        entry.get("api") is not None
        and entry.get("rule") is None
        and entry.get("error_type") in (None, NO_MATCH)
        and not entry.get("unscripted")
    )


def _objects(response: Any) -> Iterator[dict[str, Any]]:
    """The JSON objects of a response: its body, or the data of each SSE event (text)."""
    if isinstance(response, dict):
        yield response
        return
    if not isinstance(response, list):
        return
    for event in response:
        if not isinstance(event, str):
            continue
        for line in event.splitlines():
            if line.startswith("data:"):
                try:
                    data = orjson.loads(line[5:].strip())
                except orjson.JSONDecodeError:
                    continue  # [DONE], or a malformed event a fault wrote
                if isinstance(data, dict):
                    yield data


def _usages(data: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """Usage objects in a body or event, at its top or one object down (`response.usage`, `message.usage`)."""
    for key, value in data.items():
        if key in USAGE and isinstance(value, dict):
            yield value
        elif depth == 0 and isinstance(value, dict):
            yield from _usages(value, 1)


def _first(usage: dict[str, Any], names: tuple[str, ...]) -> int | None:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def tokens(response: Any) -> dict[str, int | None]:
    """Prompt, completion and reasoning tokens as the response reported them (a stream: the last
    value of each seen, since Anthropic splits them over `message_start` and `message_delta`)."""
    found: dict[str, int | None] = {"prompt": None, "completion": None, "reasoning": None}
    for data in _objects(response):
        for usage in _usages(data):
            details = [usage[name] for name in DETAILS if isinstance(usage.get(name), dict)]
            for field, value in (
                ("prompt", _first(usage, PROMPT)),
                ("completion", _first(usage, COMPLETION)),
                (
                    "reasoning",
                    _first(usage, REASONING)
                    or next((v for d in details if (v := _first(d, REASONING)) is not None), None),
                ),
            ):
                if value is not None:
                    found[field] = value
    return found


LAST_USER_CHARS = 120
"""How much of the last user text a row carries (the detail pane has it all)."""


def _text(content: Any) -> str:
    """The text of a message's content, a Gemini content's parts or a Responses input item."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return _text(content.get("parts", content.get("content", content.get("text"))))
    if isinstance(content, list):
        return " ".join(text for part in content if (text := _part_text(part)))
    return ""


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict) or part.get("thought") or "functionResponse" in part or "function_response" in part:
        return ""
    text = part.get("text", part.get("input_text"))
    return text if isinstance(text, str) else ""


def _turns(body: dict[str, Any]) -> list[Any]:
    """The body's conversation, in order: chat's and Anthropic's messages, Gemini's contents, Responses' input."""
    given = body.get("messages", body.get("contents", body.get("input")))
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    return given if isinstance(given, list) else []


def last_user(entry: dict[str, Any]) -> str:
    """The request's last user text on any face (a row's way to tell requests apart), cut to LAST_USER_CHARS."""
    body = entry.get("body")
    if not isinstance(body, dict):
        return ""
    for turn in reversed(_turns(body)):
        if isinstance(turn, dict) and turn.get("role", "user") == "user" and (text := " ".join(_text(turn).split())):
            return text if len(text) <= LAST_USER_CHARS else text[: LAST_USER_CHARS - 1] + "…"
    return ""


def model_of(entry: dict[str, Any]) -> str | None:
    """The model asked for: the body's `model`, else a `models/{model}` part of the path."""
    body = entry.get("body")
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return str(body["model"])
    path = str(entry.get("path") or "")
    if "/models/" in path:
        return path.split("/models/", 1)[1].split(":", 1)[0] or None
    return None


def misbehaved_label(applied: Any) -> str | None:
    """The fault of the misbehaviour catalogue a reply carried, `NAME;variant` (or `NAME`), None for most."""
    if not isinstance(applied, dict):
        return None
    return f"{applied['fault']};{applied['variant']}" if applied.get("variant") else str(applied.get("fault"))


def row(entry: dict[str, Any]) -> dict[str, Any]:
    """The list's row of an entry (`JournalEntry.as_dict`, or the shared store's copy of it)."""
    return {
        "seq": entry.get("seq"),
        "request_id": entry.get("request_id"),
        "arrived": entry.get("arrived"),
        "api": entry.get("api"),
        "method": entry.get("method"),
        "path": entry.get("path"),
        "model": model_of(entry),
        "session": entry.get("session"),
        "last_user": last_user(entry),
        "rule": entry.get("rule"),
        "reply_index": entry.get("reply_index"),
        "unmatched": unmatched(entry),
        "error_type": entry.get("error_type"),
        "fault": entry.get("fault"),
        "misbehaved": misbehaved_label(entry.get("misbehaved")),
        "status": entry.get("status"),
        "stream": bool(entry.get("stream")),
        "dropped": bool(entry.get("dropped")),
        "client_gone": bool(entry.get("client_gone")),
        "first_byte_ms": entry.get("first_byte_ms"),
        "duration_ms": entry.get("duration_ms"),
        "tokens": tokens(entry.get("response")),
        "worker": entry.get("worker"),
        "warnings": len(entry.get("warnings") or ()),
        "unmet": len(entry.get("unmet_expectations") or ()),
    }
