"""Stored responses (`store`, true by default), per session and bounded.

Each app's Responses face owns one `ResponseStore`, so two servers in one process never see each
other's responses. A session keeps its latest `PER_SESSION` responses (the oldest is dropped
first), the store its `SESSIONS` most recently used sessions, and all of them at most
`STORED_BYTES` of JSON (the oldest response of any session dropped first): a response keeps its
input and conversation, so a few huge inputs must not hold memory.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.foundation.bounded import Bounded

PER_SESSION = 1_000
SESSIONS = 10_000
STORED_BYTES = 64 * 1024 * 1024


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

    def __init__(self, per_session: int = PER_SESSION, sessions: int = SESSIONS, size: int = STORED_BYTES) -> None:
        self.per_session = per_session
        self.sessions = sessions
        self._all: Bounded[tuple[str, str], StoredResponse] = Bounded(per_session * sessions, size)
        self._by_session: OrderedDict[str, OrderedDict[str, None]] = OrderedDict()
        """Each session's response ids, oldest first (the responses are in `_all`)."""

    def _session(self, session: str, create: bool) -> OrderedDict[str, None] | None:
        found = self._by_session.get(session)
        if found is None and create:
            found = self._by_session[session] = OrderedDict()
            if len(self._by_session) > self.sessions:
                name, ids = self._by_session.popitem(last=False)
                for response_id in ids:
                    self._all.pop((name, response_id))
        elif found is not None:
            self._by_session.move_to_end(session)
        return found

    def put(self, session: str, response_id: str, stored: StoredResponse) -> None:
        kept = self._session(session, create=True)
        assert kept is not None
        kept[response_id] = None
        kept.move_to_end(response_id)
        while len(kept) > self.per_session:
            oldest, _ = kept.popitem(last=False)
            self._all.pop((session, oldest))
        for owner, gone in self._all.put((session, response_id), stored, len(stored.encode())):
            ids = self._by_session.get(owner)
            if ids is not None:
                ids.pop(gone, None)

    def get(self, session: str, response_id: str) -> StoredResponse | None:
        kept = self._session(session, create=False)
        return self._all.get((session, response_id)) if kept is not None else None

    def delete(self, session: str, response_id: str) -> bool:
        kept = self._session(session, create=False)
        if kept is None or response_id not in kept:
            return False
        del kept[response_id]
        self._all.pop((session, response_id))
        return True

    @property
    def bytes(self) -> int:
        """The JSON bytes of the responses kept."""
        return self._all.bytes

    def __len__(self) -> int:
        return len(self._all)
