"""Stored responses (`store`, true by default), per session and bounded.

Each app's Responses face owns one `ResponseStore`, so two servers in one process never see each
other's responses. A session keeps its latest `PER_SESSION` responses (the oldest is dropped
first), and the store its `SESSIONS` most recently used sessions.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

PER_SESSION = 1_000
SESSIONS = 10_000


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """A response as `GET` returns it, its input as `input_items` lists it, and the conversation
    (earlier turns, its input, its output) that a request naming it as `previous_response_id` continues."""

    body: Mapping[str, Any]
    input_items: list[dict[str, Any]]
    conversation: list[Mapping[str, Any]]

    def encode(self) -> bytes:
        """As the shared state (`--state`) keeps it."""
        return orjson.dumps({"body": self.body, "input_items": self.input_items, "conversation": self.conversation})

    @classmethod
    def decode(cls, blob: bytes) -> StoredResponse:
        data = orjson.loads(blob)
        return cls(data["body"], data["input_items"], data["conversation"])


class ResponseStore:
    """Responses by session and id."""

    def __init__(self, per_session: int = PER_SESSION, sessions: int = SESSIONS) -> None:
        self.per_session = per_session
        self.sessions = sessions
        self._by_session: OrderedDict[str, OrderedDict[str, StoredResponse]] = OrderedDict()

    def _session(self, session: str, create: bool) -> OrderedDict[str, StoredResponse] | None:
        found = self._by_session.get(session)
        if found is None and create:
            found = self._by_session[session] = OrderedDict()
            if len(self._by_session) > self.sessions:
                self._by_session.popitem(last=False)
        elif found is not None:
            self._by_session.move_to_end(session)
        return found

    def put(self, session: str, response_id: str, stored: StoredResponse) -> None:
        kept = self._session(session, create=True)
        assert kept is not None
        kept[response_id] = stored
        kept.move_to_end(response_id)
        while len(kept) > self.per_session:
            kept.popitem(last=False)

    def get(self, session: str, response_id: str) -> StoredResponse | None:
        kept = self._session(session, create=False)
        return kept.get(response_id) if kept is not None else None

    def delete(self, session: str, response_id: str) -> bool:
        kept = self._session(session, create=False)
        return kept is not None and kept.pop(response_id, None) is not None

    def __len__(self) -> int:
        return sum(len(kept) for kept in self._by_session.values())
