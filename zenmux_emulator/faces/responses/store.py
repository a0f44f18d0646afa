"""Stored responses (`store`, true by default), per session and bounded.

Each app keeps them in its state (`State.objects`), so two servers in one process never see each
other's responses; in process they are bounded as a `ResponseStore` is. A session keeps its latest `PER_SESSION` responses (the oldest is dropped
first), the store its `SESSIONS` most recently used sessions, and all of them at most
`STORED_BYTES` of JSON (the oldest response of any session dropped first): a response keeps its
input and conversation, so a few huge inputs must not hold memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.state.per_session import PER_SESSION, SESSIONS, STORED_BYTES, PerSession


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """A response as `GET` returns it, its input items as they came (`input_items` lists them,
    `conversation.listed`), and the conversation (earlier turns, its input, its output) that a
    request naming it as `previous_response_id` continues."""

    body: Mapping[str, Any]
    inputs: list[dict[str, Any]]
    conversation: list[Mapping[str, Any]]

    def encode(self) -> bytes:
        """As the shared state (`--state`) keeps it."""
        return orjson.dumps({"body": self.body, "inputs": self.inputs, "conversation": self.conversation})

    @classmethod
    def decode(cls, blob: bytes) -> StoredResponse:
        data = orjson.loads(blob)
        return cls(data["body"], data["inputs"], data["conversation"])


class ResponseStore(PerSession[StoredResponse]):
    """Responses by session and id, bounded as the in-process state bounds every face's stored
    objects (`server/state_local.py` `LocalObjects`: the same `PerSession`, measured by `encode`)."""

    def __init__(self, per_session: int = PER_SESSION, sessions: int = SESSIONS, size: int = STORED_BYTES) -> None:
        super().__init__(lambda stored: len(stored.encode()), per_session, sessions, size)
