"""Findings about a client's behaviour, read from one session's journal: the things an agent or
SDK wrapper gets wrong that a scripted reply alone does not reveal.

- `reasoning`: signed reasoning not passed back intact on a tool turn;
- `expectations`: a rule's `expect` block not met;
- `tool_calls`: a tool call the emulator returned that no later request answered;
- `retry_after`: a request sent before the `Retry-After` (or `retry-after-ms`) of the answer before it;
- `non_retryable`: the same request sent again after a non-retryable error (400, 402, 403, 404, 413, 422).

Every face is read by the shapes of its own wire API, per `entry.api` (the journal stays below
the faces, so it reads bodies, not the faces' types): chat `tool_calls` answered by `tool`
messages; Anthropic `tool_use` blocks answered by `tool_result` blocks; Responses `function_call`
and `custom_tool_call` items answered by `*_output` items with the same `call_id`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.draft.passback import REJECTIONS
from zenmux_emulator.foundation.errors import INVALID_PARAMS
from zenmux_emulator.journal.entry import JournalEntry

NON_RETRYABLE = frozenset({400, 402, 403, 404, 413, 422})
RESPONSES_CALLS = frozenset({"function_call", "custom_tool_call"})
RESPONSES_ANSWERS = frozenset({"function_call_output", "custom_tool_call_output"})

Call = tuple[str, str]
"""A returned tool call: its id (or `call_id`) and the tool's name."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the client did wrong, with the journal entry (`seq`) where it shows."""

    check: str
    seq: int
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] request #{self.seq}: {self.message}"


def _json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _event_data(entry: JournalEntry) -> Iterator[dict[str, Any]]:
    """The JSON `data:` object of every SSE event the client got (malformed ones skipped)."""
    for event in entry.sent_events():
        for line in event.split(b"\n"):
            if line.startswith(b"data: {"):
                data = _json(line[6:])
                if isinstance(data, dict):
                    yield data


def _chat_call(call: Any) -> Call | None:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return None
    return call["id"], (call.get(call.get("type", "function")) or {}).get("name", "")


def _chat_calls(entry: JournalEntry) -> list[Call | None]:
    if isinstance(entry.response, bytes):
        body = _json(entry.response)
        try:
            message = body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return []
        return [_chat_call(c) for c in message.get("tool_calls") or ()]
    return [
        _chat_call(call)
        for data in _event_data(entry)
        for choice in data.get("choices") or ()
        for call in (choice.get("delta") or {}).get("tool_calls") or ()
    ]


def _anthropic_call(block: Any) -> Call | None:
    if not isinstance(block, dict) or block.get("type") != "tool_use" or not isinstance(block.get("id"), str):
        return None
    return block["id"], str(block.get("name", ""))


def _anthropic_calls(entry: JournalEntry) -> list[Call | None]:
    if isinstance(entry.response, bytes):
        body = _json(entry.response)
        return [_anthropic_call(b) for b in (body.get("content") or () if isinstance(body, dict) else ())]
    return [
        _anthropic_call(data.get("content_block"))
        for data in _event_data(entry)
        if data.get("type") == "content_block_start"
    ]


def _responses_call(item: Any) -> Call | None:
    if (
        not isinstance(item, dict)
        or item.get("type") not in RESPONSES_CALLS
        or not isinstance(item.get("call_id"), str)
    ):
        return None
    return item["call_id"], str(item.get("name", ""))


def _responses_calls(entry: JournalEntry) -> list[Call | None]:
    """The call items of the `response` JSON, or of the `response.output_item.done` events (each
    item the client got whole; a stream cut before an item is done did not hand it over)."""
    if isinstance(entry.response, bytes):
        body = _json(entry.response)
        return [_responses_call(i) for i in (body.get("output") or () if isinstance(body, dict) else ())]
    return [
        _responses_call(data.get("item"))
        for data in _event_data(entry)
        if data.get("type") == "response.output_item.done"
    ]


def _chat_answers(body: dict[str, Any]) -> Iterator[Any]:
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "tool":
            yield message.get("tool_call_id")


def _anthropic_answers(body: dict[str, Any]) -> Iterator[Any]:
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                yield block.get("tool_use_id")


def _responses_answers(body: dict[str, Any]) -> Iterator[Any]:
    items = body.get("input")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("type") in RESPONSES_ANSWERS:
            yield item.get("call_id")


@dataclass(frozen=True, slots=True)
class Shapes:
    """How one face's journal bodies carry tool calls and their answers."""

    calls: Callable[[JournalEntry], list[Call | None]]
    answers: Callable[[dict[str, Any]], Iterator[Any]]


SHAPES: Mapping[str, Shapes] = {
    "chat": Shapes(_chat_calls, _chat_answers),
    "anthropic": Shapes(_anthropic_calls, _anthropic_answers),
    "responses": Shapes(_responses_calls, _responses_answers),
}
"""The readers of the faces this package ships: their `FaceSpec`s carry them, and `verdict` reads
them when it is given none."""


def _returned_calls(entry: JournalEntry, readers: Mapping[str, Shapes]) -> list[Call]:
    """(id, name) of the tool calls a successful reply carried, JSON or streamed, once each."""
    shapes = readers.get(entry.api or "")
    if shapes is None or entry.status != 200 or entry.response is None:
        return []
    return list(dict.fromkeys(call for call in shapes.calls(entry) if call is not None))


def _answered_ids(entry: JournalEntry, readers: Mapping[str, Shapes]) -> set[str]:
    shapes = readers.get(entry.api or "")
    if shapes is None or not isinstance(entry.body, dict):
        return set()
    return {answer for answer in shapes.answers(entry.body) if isinstance(answer, str)}


def _error_message(entry: JournalEntry) -> str:
    body = _json(entry.response) if isinstance(entry.response, bytes) else None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


def _reasoning_rejection(entry: JournalEntry) -> str | None:
    """Why signed reasoning passed back was refused, if it was: 400 `invalid_params` with the
    signature (or encrypted content) message on any face, or a `reasoning check:` warning when the
    check only warns."""
    warning = next((w for w in entry.warnings if w.startswith("reasoning check:")), None)
    if warning is not None:
        return warning
    if entry.status == 400 and entry.error_type == INVALID_PARAMS:
        message = _error_message(entry)
        if any(mark in message for mark in REJECTIONS):
            return f"rejected with 400: {message}"
    return None


def _retry_delay(entry: JournalEntry) -> float | None:
    headers = {k.lower(): v for k, v in entry.response_headers.items()}
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except ValueError:
        return None
    return None


def verdict(entries: Iterable[JournalEntry], readers: Mapping[str, Shapes] = SHAPES) -> list[Finding]:
    """Every finding over the face requests of one session, in arrival order; `readers` read each
    face's tool calls (the app's registered faces give theirs: `FaceSpec.readers`)."""
    requests: Sequence[JournalEntry] = [e for e in entries if e.api is not None]
    findings: list[Finding] = []
    for i, entry in enumerate(requests):
        later = requests[i + 1 :]
        rejection = _reasoning_rejection(entry)
        if rejection is not None:
            findings.append(Finding("reasoning", entry.seq, f"signed reasoning not passed back intact ({rejection})"))
        findings.extend(Finding("expectations", entry.seq, unmet) for unmet in entry.unmet_expectations)
        calls = _returned_calls(entry, readers)
        if calls:
            answered = set().union(*(_answered_ids(e, readers) for e in later)) if later else set()
            findings.extend(
                Finding("tool_calls", entry.seq, f"tool call {call_id} ({name}) was never answered")
                for call_id, name in calls
                if call_id not in answered
            )
        delay = _retry_delay(entry) if entry.status in (429, 503) else None
        if delay is not None and later and later[0].arrived < entry.arrived + delay:
            early = entry.arrived + delay - later[0].arrived
            findings.append(
                Finding(
                    "retry_after",
                    later[0].seq,
                    f"sent {early:.2f}s before the Retry-After of request #{entry.seq} ran out",
                )
            )
        if entry.status in NON_RETRYABLE:
            for again in later:
                if again.api == entry.api and again.body == entry.body:
                    findings.append(
                        Finding(
                            "non_retryable",
                            again.seq,
                            f"repeats request #{entry.seq}, which got the non-retryable {entry.status}",
                        )
                    )
                    break
    return findings
