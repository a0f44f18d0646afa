"""Text for people: unused rules, a failing test's journal, and the end-of-run `--zenmux-report`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zenmux_emulator.core.journal.entry import JournalEntry

SECTION = "zenmux journal"
PROPERTY = "zenmux"
"""The `user_properties` key carrying a test's report data to the controller (also under xdist)."""


@dataclass(frozen=True, slots=True)
class UnusedRule:
    name: str
    where: str


def unused_rules_message(unused: Sequence[UnusedRule]) -> str:
    lines = [f"{len(unused)} zenmux rule(s) loaded by this test never matched:"]
    lines += [f"  {rule.name} ({rule.where})" for rule in unused]
    return "\n".join(lines)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("text"))
    return ""


def last_user(body: Any, width: int = 80) -> str:
    """The last user message of a chat body, on one line and cut to `width`."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            text = " ".join(_text(message.get("content")).split())
            return text if len(text) <= width else text[: width - 1] + "…"
    return ""


Locate = Callable[[str], str]


def _same(where: str) -> str:
    return where


def located(near_misses: Iterable[dict[str, Any]], locate: Locate = _same) -> list[dict[str, Any]]:
    """Near misses with `where` turned from `api:<scenario>:<line>` into the test's file:line."""
    return [{**near, "where": locate(str(near.get("where", "")))} for near in near_misses]


def near_miss_lines(near_misses: Iterable[dict[str, Any]], indent: str = "    ") -> list[str]:
    lines = []
    for near in near_misses:
        missed = "; ".join(f"{m['key']} wanted {m['expected']}, got {m['actual']}" for m in near.get("misses", []))
        lines.append(f"{indent}near miss: {near['rule']} ({near['where']}): {missed}")
    return lines


def journal_section(entries: Sequence[JournalEntry], session: str, locate: Locate = _same) -> str:
    """A failing test's requests: `#seq METHOD path status rule`, the last user message, near misses."""
    if not entries:
        return f"session {session}: no requests reached the emulator"
    lines = [f"session {session}: {len(entries)} request(s)"]
    for entry in entries:
        lines.append(
            f"#{entry.seq} {entry.method} {entry.path} {entry.status if entry.status is not None else '…'} "
            f"rule={entry.rule or '-'}"
            + (f" error={entry.error_type}" if entry.error_type else "")
            + (f" misbehaved={misbehaved_label(entry)}" if entry.misbehaved is not None else "")
        )
        user = last_user(entry.body)
        if user:
            lines.append(f"    last user: {user!r}")
        lines += near_miss_lines(located(entry.near_misses, locate))
    return "\n".join(lines)


def misbehaved_label(entry: JournalEntry) -> str:
    """The fault an entry's reply was made wrong with, `NAME;variant` (or `NAME`)."""
    applied = entry.misbehaved.as_dict() if entry.misbehaved is not None else {}
    return f"{applied.get('fault')};{applied['variant']}" if applied.get("variant") else str(applied.get("fault"))


def why_first(entries: Sequence[JournalEntry], locate: Locate = _same, *, expectations: bool = True) -> str:
    """What a failing test's report says before the traceback: each request no rule matched (a strict 404, or a
    placeholder answer), with its nearest rules at their file:line and the fields they wanted, each expectation
    a request did not meet, and each reply made wrong on purpose (a misbehaviour fault). Empty when the emulator has nothing to say."""
    lines = []
    unmatched = [entry for entry in entries if entry.unmatched]
    if unmatched:
        lines.append(f"zenmux: {len(unmatched)} request(s) no rule matched:")
    for entry in unmatched:
        answered = f"{entry.status} {entry.error_type}" if entry.error_type else f"{entry.status} (a placeholder reply)"
        user = last_user(entry.body)
        lines.append(
            f"  #{entry.seq} {entry.method} {entry.path} answered {answered}"
            + (f", last user: {user!r}" if user else "")
        )
        lines += near_miss_lines(located(entry.near_misses, locate)) or ["    no rule could answer this face"]
    unmet = [unmet for entry in entries for unmet in entry.unmet_expectations] if expectations else []
    if unmet:
        lines.append(f"zenmux: {len(unmet)} expectation(s) not met:")
        lines += [f"  {line}" for line in unmet]
    faulty = [entry for entry in entries if entry.misbehaved is not None]
    if faulty:
        lines.append(f"zenmux: {len(faulty)} reply(ies) misbehaved on purpose (docs: Models that misbehave):")
        lines += [f"  #{entry.seq} {entry.method} {entry.path}: {misbehaved_label(entry)}" for entry in faulty]
    if lines:
        lines.append("(every request of the test: the 'zenmux journal' section below)")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class WhyFirst:
    """A failed test's long report: the plugin's summary, then pytest's own (the traceback). pytest writes it with
    `toterminal`; under xdist it travels as text (`str`)."""

    summary: str
    original: Any

    @property
    def reprcrash(self) -> Any:  # the short summary line and junitxml read the original failure
        return getattr(self.original, "reprcrash", None)

    def toterminal(self, out: Any) -> None:
        for line in self.summary.splitlines():
            out.line(line, red=True, bold=True)
        out.line("")
        if hasattr(self.original, "toterminal"):
            self.original.toterminal(out)
        else:
            out.line(str(self.original))

    def __str__(self) -> str:
        return f"{self.summary}\n\n{self.original}"


def unmatched_record(entry: JournalEntry, locate: Locate = _same) -> dict[str, Any]:
    """A plain, serialisable view of an unmatched request (it travels from xdist workers)."""
    body = entry.body if isinstance(entry.body, dict) else {}
    return {
        "seq": entry.seq,
        "model": body.get("model"),
        "status": entry.status,
        "last_user": last_user(entry.body),
        "near_misses": located(entry.near_misses, locate),
    }


def summary_lines(
    unused: Sequence[tuple[str, str, str]],
    unmatched: Sequence[tuple[str, dict[str, Any]]],
    misbehaved: Sequence[tuple[str, list[str]]] = (),
    stuck: Sequence[str] = (),
) -> list[str]:
    """The `--zenmux-report` text: rules never matched (rule, where, loaded by), unmatched requests,
    the faults of the misbehaviour catalogue each test's replies carried, and the scenarios no rule
    moved out of `started` in any test."""
    lines = [f"rules never matched: {len(unused)}"]
    lines += [f"  {name} ({where})" + (f" loaded by {owner}" if owner else "") for name, where, owner in unused]
    lines.append(f"requests no rule matched: {len(unmatched)}")
    for nodeid, record in unmatched:
        lines.append(
            f"  {nodeid} #{record['seq']} {record['model']} status={record['status']} "
            f"last user: {record['last_user']!r}"
        )
        lines += near_miss_lines(record["near_misses"])
    lines.append(f"tests whose replies misbehaved: {len(misbehaved)}")
    lines += [f"  {nodeid}: {', '.join(faults)}" for nodeid, faults in misbehaved]
    lines.append(f"scenarios that never left started: {len(stuck)}")
    lines += [f"  {name}" for name in stuck]
    return lines
