"""Findings about a client's behaviour, read from one session's journal: the things an agent or
SDK wrapper gets wrong that a scripted reply alone does not reveal.

- `reasoning`: signed reasoning not passed back intact on a tool turn;
- `expectations`: a rule's `expect` block not met;
- `tool_calls`: a tool call the emulator returned that no later request answered;
- `retry_after`: a request sent before the `Retry-After` (or `retry-after-ms`) of the answer before it;
- `non_retryable`: the same request sent again after a non-retryable error (400, 402, 403, 404, 413, 422).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.draft.passback import UPSTREAM_REJECTED
from zenmux_emulator.journal.entry import JournalEntry

NON_RETRYABLE = frozenset({400, 402, 403, 404, 413, 422})


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the client did wrong, with the journal entry (`seq`) where it shows."""

    check: str
    seq: int
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] request #{self.seq}: {self.message}"


def _returned_calls(entry: JournalEntry) -> list[tuple[str, str]]:
    """(id, name) of the tool calls a successful chat reply carried, JSON or streamed."""
    if entry.status != 200 or entry.response is None:
        return []
    if isinstance(entry.response, bytes):
        try:
            message = orjson.loads(entry.response)["choices"][0]["message"]
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
            return []
        return [(c["id"], (c.get(c.get("type", "function")) or {}).get("name", "")) for c in message.get("tool_calls") or ()]
    calls = []
    for event in entry.response[: entry.events_sent]:
        if not event.startswith(b"data: {"):
            continue
        for choice in orjson.loads(event[6:]).get("choices") or ():
            for call in choice.get("delta", {}).get("tool_calls") or ():
                if "id" in call:
                    calls.append((call["id"], (call.get(call.get("type", "function")) or {}).get("name", "")))
    return calls


def _answered_ids(body: Any) -> set[str]:
    messages = body.get("messages") if isinstance(body, dict) else None
    return {m["tool_call_id"] for m in messages or () if isinstance(m, dict) and m.get("role") == "tool"
            and isinstance(m.get("tool_call_id"), str)}


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


def verdict(entries: Iterable[JournalEntry]) -> list[Finding]:
    """Every finding over the chat requests of one session, in arrival order."""
    chats: Sequence[JournalEntry] = [e for e in entries if e.api is not None]
    findings: list[Finding] = []
    for i, entry in enumerate(chats):
        later = chats[i + 1:]
        if entry.error_type == UPSTREAM_REJECTED or any(w.startswith("reasoning check:") for w in entry.warnings):
            reason = next((w for w in entry.warnings if w.startswith("reasoning check:")), "rejected with 422")
            findings.append(Finding("reasoning", entry.seq, f"signed reasoning not passed back intact ({reason})"))
        findings.extend(Finding("expectations", entry.seq, unmet) for unmet in entry.unmet_expectations)
        calls = _returned_calls(entry)
        if calls:
            answered = set().union(*(_answered_ids(e.body) for e in later)) if later else set()
            findings.extend(Finding("tool_calls", entry.seq, f"tool call {call_id} ({name}) was never answered")
                            for call_id, name in calls if call_id not in answered)
        delay = _retry_delay(entry) if entry.status in (429, 503) else None
        if delay is not None and later and later[0].arrived < entry.arrived + delay:
            early = entry.arrived + delay - later[0].arrived
            findings.append(Finding("retry_after", later[0].seq,
                                    f"sent {early:.2f}s before the Retry-After of request #{entry.seq} ran out"))
        if entry.status in NON_RETRYABLE:
            for again in later:
                if again.body == entry.body:
                    findings.append(Finding("non_retryable", again.seq,
                                            f"repeats request #{entry.seq}, which got the non-retryable {entry.status}"))
                    break
    return findings
