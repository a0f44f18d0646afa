"""Per-client state: each session has its own request count (its ids' numbers) and reply-sequence
positions.

A session is named by the `X-Emulator-Session` header, else by a digest of the API key, so
parallel test workers sharing one server do not disturb each other.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from zenmux_emulator.foundation.header_text import header_text
from zenmux_emulator.foundation.ids import digest

SESSION_HEADER = "X-Emulator-Session"


@dataclass(slots=True)
class Bucket:
    """A token bucket: its level when last looked at, and when that was."""

    level: float
    at: float

    def refill(self, now: float, capacity: int, window: float) -> None:
        if now > self.at:
            self.level = min(float(capacity), self.level + (now - self.at) * capacity / window)
        self.at = now


@dataclass(slots=True)
class GatewayState:
    """A session's rate buckets and spent credits per key, and its chaos draw count."""

    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)
    spent: dict[str, float] = field(default_factory=dict)
    arrivals: int = 0
    """Requests that passed limits and balance: the request's number in its session, which its ids
    (`foundation.ids.completion_id`) and chaos draw are made from; taken atomically on admission."""

    def bucket(self, key: str, kind: str, capacity: int, now: float) -> Bucket:
        found = self.buckets.get((key, kind))
        if found is None:
            found = self.buckets[(key, kind)] = Bucket(float(capacity), now)
        return found


def session_name(headers: Mapping[str, str], api_key: str) -> str:
    """The session a request belongs to; never the key itself."""
    named = headers.get(SESSION_HEADER)
    if named is not None and not named.isascii():  # the usual name is ASCII: no call
        named = header_text(headers, SESSION_HEADER)
    if named:
        return named[:128]
    return _key_session(api_key)


@lru_cache(maxsize=1024)
def _key_session(api_key: str) -> str:
    """A key's session name: a digest, so the key itself is never shown (hashed once per key)."""
    return "key-" + digest("session", api_key, size=6)


class Session:
    """A client's state: how often each rule answered it, the routing counters (round-robin
    rotation per model, requests per model@provider), and its gateway's (rate buckets, credits,
    and `arrivals`, the requests it let in: each request's number, which its ids are made from)."""

    __slots__ = ("gateway", "hits", "name", "provider_requests", "rotations")

    def __init__(self, name: str) -> None:
        self.name = name
        self.hits: dict[str, int] = {}
        self.rotations: dict[str, int] = {}
        self.provider_requests: dict[str, int] = {}
        self.gateway = GatewayState()  # rate buckets, spent credits, chaos draws (core.gateway.limits uses them)

    def reset(self) -> None:
        self.hits.clear()
        self.rotations.clear()
        self.provider_requests.clear()
        self.gateway = GatewayState()


class SessionStore:
    """Sessions by name, the least recently used dropped past `capacity` (and told to `forgotten`:
    a session that comes back starts over, as after a reset)."""

    def __init__(self, capacity: int = 10_000, forgotten: Callable[[str], None] | None = None) -> None:
        self.capacity = capacity
        self.forgotten = forgotten
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def get(self, name: str) -> Session:
        session = self._sessions.get(name)
        if session is None:
            session = self._sessions[name] = Session(name)
            if len(self._sessions) > self.capacity:
                gone, _ = self._sessions.popitem(last=False)
                if self.forgotten is not None:
                    self.forgotten(gone)
        else:
            self._sessions.move_to_end(name)
        return session

    def find(self, name: str) -> Session | None:
        """The session of that name if it sent a request (and was not forgotten); never creates one."""
        return self._sessions.get(name)

    def reset(self, name: str | None = None) -> int:
        """Restart one session's request count and reply sequences, or every session's; how many."""
        if name is None:
            for session in self._sessions.values():
                session.reset()
            return len(self._sessions)
        known = self._sessions.get(name)
        if known is None:
            return 0
        known.reset()
        return 1

    def total_hits(self) -> dict[str, int]:
        """How often each rule answered, summed over the sessions still known."""
        totals: dict[str, int] = {}
        for session in self._sessions.values():
            for rule, hits in session.hits.items():
                totals[rule] = totals.get(rule, 0) + hits
        return totals

    def __contains__(self, name: object) -> bool:
        return name in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)
