"""The request journal: a ring of entries, newest last, bounded by count and by bytes."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.summary import summarise


class Journal:
    """Keeps the last `size` requests in memory (0 keeps none), and no more than `max_bytes` of
    their bodies and responses (counted as the JSON bytes received and sent, each one past
    `body_bytes` kept as a summary: its size and hash). In-flight entries count when they finish."""

    def __init__(self, size: int, max_bytes: int = 32 << 20, body_bytes: int = 256 << 10) -> None:
        self._entries: deque[JournalEntry] = deque()
        self.size = size
        self.max_bytes = max_bytes
        self.body_bytes = body_bytes
        self.bytes = 0
        """What the finished entries kept hold, as `JournalEntry.kept_bytes` counts it."""
        self.received = 0
        """Requests the server received, control API included: the next entry's `seq`."""
        self.watchers: list[Callable[[JournalEntry], None]] = []
        """Called with each entry the journal keeps once it is settled (the inspector's open live lists)."""

    def add(self, entry: JournalEntry) -> None:
        entries = self._entries
        if len(entries) >= self.size:
            if not self.size:
                return
            forgotten = entries.popleft()
            forgotten.kept = False
            self.bytes -= forgotten.kept_bytes
        entry.kept = True
        entries.append(entry)

    def settle(self, entry: JournalEntry) -> None:
        """A finished entry: its body and response summarised past the limit, its bytes counted,
        the oldest entries forgotten while the journal holds more than `max_bytes`."""
        if not entry.kept:
            return
        summarise(entry, self.body_bytes)
        self.bytes += entry.kept_bytes
        while self.bytes > self.max_bytes and len(self._entries) > 1:
            self._forget(self._entries.popleft())
        for watch in self.watchers:
            watch(entry)

    def _forget(self, entry: JournalEntry) -> None:
        entry.kept = False
        self.bytes -= entry.kept_bytes

    def entries(
        self,
        *,
        session: str | None = None,
        rule: str | None = None,
        path: str | None = None,
        unmatched: bool = False,
        limit: int | None = None,
        before: int | None = None,
        after: int | None = None,
    ) -> list[JournalEntry]:
        """Entries in arrival order, filtered by whatever is given (`before`/`after`: by `seq`);
        `limit` keeps the newest."""
        found = [
            entry
            for entry in list(self._entries)  # a copy: other threads may read while the loop appends
            if (session is None or entry.session == session)
            and (rule is None or entry.rule == rule)
            and (path is None or entry.path == path)
            and (before is None or entry.seq < before)
            and (after is None or entry.seq > after)
            and (not unmatched or entry.unmatched)
        ]
        if limit is not None:
            found = found[max(len(found) - limit, 0) :]
        return found

    def clear(self, session: str | None = None) -> None:
        """Forget every entry, or one session's."""
        kept = [] if session is None else [e for e in self._entries if e.session != session]
        for entry in self._entries:
            entry.kept = False
        self._entries.clear()
        self.bytes = 0
        for entry in kept:
            entry.kept = True
            self.bytes += entry.kept_bytes
        self._entries.extend(kept)

    def __len__(self) -> int:
        return len(self._entries)
