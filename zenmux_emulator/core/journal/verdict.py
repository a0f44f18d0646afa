"""Findings about a client's behaviour, read from one session's journal: the things an agent or
SDK wrapper gets wrong that a scripted reply alone does not reveal.

- `reasoning`: signed reasoning not passed back intact on a tool turn;
- `expectations`: a rule's `expect` block not met;
- `tool_calls`: a tool call the emulator returned that no later request answered;
- `retry_after`: a request sent before the `Retry-After` (or `retry-after-ms`) of the answer before it
  ran out, in wall time and on the emulator's clock alike (a test that advances a frozen clock waits on it);
- `non_retryable`: the same request sent again after a non-retryable error (400, 402, 403, 404, 413, 422).

The tool calls are read by each face's own readers (`Shapes`, registered on its `FaceSpec` and
kept in its folder: `faces/<name>/verdict.py`), per `entry.api`; everything else here reads what
every face's journal entry has (status, headers, warnings, the error envelope's message).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.core.draft.passback import REJECTIONS
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.foundation.errors import INVALID_PARAMS

NON_RETRYABLE = frozenset({400, 402, 403, 404, 413, 422})

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


def json_or_none(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def event_data(entry: JournalEntry) -> Iterator[dict[str, Any]]:
    """The JSON `data:` object of every SSE event the client got (malformed ones skipped)."""
    for event in entry.sent_events():
        for line in event.split(b"\n"):
            if line.startswith(b"data: {"):
                data = json_or_none(line[6:])
                if isinstance(data, dict):
                    yield data


@dataclass(frozen=True, slots=True)
class Shapes:
    """How one face's journal bodies carry tool calls and their answers."""

    calls: Callable[[JournalEntry], list[Call | None]]
    answers: Callable[[dict[str, Any]], Iterator[Any]]


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
    body = json_or_none(entry.response) if isinstance(entry.response, bytes) else None
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


def _waited(entry: JournalEntry, after: JournalEntry) -> float:
    """How long the client waited between two requests: in wall time, or on the emulator's clock when
    that moved further (a frozen clock advanced through the control API, as a test with fake time does)."""
    return max(after.arrived - entry.arrived, after.time - entry.time)


def verdict(entries: Iterable[JournalEntry], readers: Mapping[str, Shapes]) -> list[Finding]:
    """Every finding over the face requests of one session, in arrival order; `readers` read each
    face's tool calls (the app's registered faces give theirs: `FaceSpec.readers`, `readers_of`)."""
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
        early = delay - _waited(entry, later[0]) if delay is not None and later else 0.0
        if early > 0:
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
