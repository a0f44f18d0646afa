"""Values kept per session and id, bounded three ways: a session keeps its latest `per_session`
values (the oldest is dropped first), the store its `sessions` most recently used sessions, and all
the values together at most `size` bytes as `measure` counts them (the oldest of any session is
dropped first). Stored Responses and Anthropic message threads are kept this way when the state is
in this process, so neither a few huge requests nor many small ones can hold memory."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from zenmux_emulator.foundation.bounded import Bounded

V = TypeVar("V")

PER_SESSION = 1_000
SESSIONS = 10_000
STORED_BYTES = 64 * 1024 * 1024


class PerSession(Generic[V]):
    """Values by session and id."""

    def __init__(
        self,
        measure: Callable[[V], int],
        per_session: int = PER_SESSION,
        sessions: int = SESSIONS,
        size: int = STORED_BYTES,
    ) -> None:
        self.per_session = per_session
        self.sessions = sessions
        self._measure = measure
        self._all: Bounded[tuple[str, str], V] = Bounded(per_session * sessions, size)
        self._by_session: OrderedDict[str, OrderedDict[str, None]] = OrderedDict()
        """Each session's ids, oldest first (the values are in `_all`)."""

    def _session(self, session: str, create: bool) -> OrderedDict[str, None] | None:
        found = self._by_session.get(session)
        if found is None and create:
            found = self._by_session[session] = OrderedDict()
            if len(self._by_session) > self.sessions:
                name, ids = self._by_session.popitem(last=False)
                for key in ids:
                    self._all.pop((name, key))
        elif found is not None:
            self._by_session.move_to_end(session)
        return found

    def put(self, session: str, key: str, value: V) -> None:
        kept = self._session(session, create=True)
        assert kept is not None
        kept[key] = None
        kept.move_to_end(key)
        while len(kept) > self.per_session:
            oldest, _ = kept.popitem(last=False)
            self._all.pop((session, oldest))
        for owner, gone in self._all.put((session, key), value, self._measure(value)):
            ids = self._by_session.get(owner)
            if ids is not None:
                ids.pop(gone, None)

    def get(self, session: str, key: str) -> V | None:
        kept = self._session(session, create=False)
        return self._all.get((session, key)) if kept is not None else None

    def delete(self, session: str, key: str) -> bool:
        kept = self._session(session, create=False)
        if kept is None or key not in kept:
            return False
        del kept[key]
        self._all.pop((session, key))
        return True

    def drop(self, session: str | None) -> None:
        """Forget one session's values, or every session's."""
        names = list(self._by_session) if session is None else [session]
        for name in names:
            for key in self._by_session.pop(name, {}):
                self._all.pop((name, key))

    @property
    def bytes(self) -> int:
        """The bytes of the values kept, as `measure` counts them."""
        return self._all.bytes

    def __len__(self) -> int:
        return len(self._all)
