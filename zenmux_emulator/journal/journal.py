"""The request journal: a bounded ring of entries, newest last."""

from __future__ import annotations

from collections import deque

from zenmux_emulator.journal.entry import JournalEntry


class Journal:
    """Keeps the last `size` requests in memory (0 keeps none)."""

    def __init__(self, size: int) -> None:
        self._entries: deque[JournalEntry] = deque(maxlen=size)
        self.received = 0
        """Requests the server received, control API included: the next entry's `seq`."""

    def add(self, entry: JournalEntry) -> None:
        if self._entries.maxlen:
            self._entries.append(entry)

    def entries(self, *, session: str | None = None, rule: str | None = None, path: str | None = None,
                unmatched: bool = False, limit: int | None = None) -> list[JournalEntry]:
        """Entries in arrival order, filtered by whatever is given; `limit` keeps the newest."""
        found = [
            entry for entry in list(self._entries)  # a copy: other threads may read while the loop appends
            if (session is None or entry.session == session)
            and (rule is None or entry.rule == rule)
            and (path is None or entry.path == path)
            and (not unmatched or entry.unmatched)
        ]
        if limit is not None:
            found = found[max(len(found) - limit, 0):]
        return found

    def clear(self, session: str | None = None) -> None:
        """Forget every entry, or one session's."""
        if session is None:
            self._entries.clear()
        else:
            kept = [e for e in self._entries if e.session != session]
            self._entries.clear()
            self._entries.extend(kept)

    def __len__(self) -> int:
        return len(self._entries)
