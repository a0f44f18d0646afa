"""Values kept per session and id, bounded: a session keeps its latest `per_session` values (the
oldest is dropped first), and the store its `sessions` most recently used sessions. Stored
Responses and Anthropic message threads are kept this way when the state is in this process."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")

PER_SESSION = 1_000
SESSIONS = 10_000


class PerSession(Generic[V]):
    """Values by session and id."""

    def __init__(self, per_session: int = PER_SESSION, sessions: int = SESSIONS) -> None:
        self.per_session = per_session
        self.sessions = sessions
        self._by_session: OrderedDict[str, OrderedDict[str, V]] = OrderedDict()

    def _session(self, session: str, create: bool) -> OrderedDict[str, V] | None:
        found = self._by_session.get(session)
        if found is None and create:
            found = self._by_session[session] = OrderedDict()
            if len(self._by_session) > self.sessions:
                self._by_session.popitem(last=False)
        elif found is not None:
            self._by_session.move_to_end(session)
        return found

    def put(self, session: str, key: str, value: V) -> None:
        kept = self._session(session, create=True)
        assert kept is not None
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > self.per_session:
            kept.popitem(last=False)

    def get(self, session: str, key: str) -> V | None:
        kept = self._session(session, create=False)
        return kept.get(key) if kept is not None else None

    def delete(self, session: str, key: str) -> bool:
        kept = self._session(session, create=False)
        return kept is not None and kept.pop(key, None) is not None

    def __len__(self) -> int:
        return sum(len(kept) for kept in self._by_session.values())
