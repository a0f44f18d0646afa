"""The state in this process (no `--state`): live sessions, the journal's ring of live entries, and
each face's stored objects as their JSON, bounded per session, in count and in bytes
(`state.per_session`). Nothing else is serialised on the request path; the awaitable operations
answer at once."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from itertools import islice
from typing import Generic, Protocol

from aiohttp import web

from zenmux_emulator.core.gateway.admission import admit_key
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.journal.ledger import Ledger
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.state import Admitted, JournalQuery, ObjectStore, Row, S, Shelf, ShelfBounds
from zenmux_emulator.foundation.bounded import Bounded
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.memory import fix_mmap_threshold
from zenmux_emulator.foundation.misbehaviours import Ask
from zenmux_emulator.state.misbehaving import Misbehaving
from zenmux_emulator.state.per_session import PerSession
from zenmux_emulator.state.scenario_states import Standing, StateBook
from zenmux_emulator.state.sessions import Session, SessionStore
from zenmux_emulator.state.spend import Spend

log = logging.getLogger("emulator.state")

CONTINUED_KEPT = 100_000
"""Ids asked for `once` that a store remembers; past it, it forgets them all (a bound, not an LRU)."""


class Resettable(Protocol):
    def reset(self, session: str | None) -> None: ...


class LocalObjects(Generic[S]):
    """A face's objects kept as their compact JSON (`encode`), read back with `decode`, bounded like
    the journal (`state.per_session`): the bound in bytes is then what they hold. Kept as the
    objects themselves, Anthropic threads of 16,383 messages held 710 MB under the 64 MiB bound."""

    def __init__(self, decode: Callable[[bytes], S]) -> None:
        fix_mmap_threshold()  # else the kept JSON, hundreds of kB each, fragments the heap (foundation.memory)
        self.decode = decode
        self.kept: PerSession[bytes] = PerSession(len)
        self.asked: dict[str, set[str]] = {}
        """The ids asked for `once`, by session (`CONTINUED_KEPT` in all at most; `asking` of them)."""
        self.asking = 0

    async def get(self, session: str, key: str) -> S | None:
        blob = self.kept.get(session, key)
        return None if blob is None else self.decode(blob)

    def keep(self, session: str, key: str, value: S) -> None:
        if self.kept.get(session, key) is not None:  # another request's: its id was not its own
            log.warning("not stored: %s of session %s is kept already, by another request", key, session)
            return
        self.kept.put(session, key, value.encode())

    async def delete(self, session: str, key: str) -> bool:
        return self.kept.delete(session, key)

    async def once(self, session: str, key: str) -> bool:
        keys = self.asked.get(session)
        if keys is not None and key in keys:
            return False
        if self.asking > CONTINUED_KEPT:
            self.asked.clear()
            self.asking, keys = 0, None
        if keys is None:
            keys = self.asked[session] = set()
        keys.add(key)
        self.asking += 1
        return True

    def reset(self, session: str | None) -> None:
        self.kept.drop(session)
        if session is None:
            self.asked.clear()
            self.asking = 0
        else:
            self.asking -= len(self.asked.pop(session, ()))


class LocalShelf(Generic[S]):
    """Objects by id for the whole server, bounded by count and bytes (`foundation.bounded`)."""

    def __init__(self, bounds: ShelfBounds) -> None:
        self.kept: Bounded[str, S] = Bounded(bounds.count, bounds.size)
        self.marks: dict[str, str] = {}

    async def get(self, key: str) -> S | None:
        return self.kept.get(key)

    def keep(self, key: str, value: S) -> None:
        for gone in self.kept.put(key, value, len(value.encode())):
            self.marks.pop(gone, None)

    async def newest(self, offset: int, count: int) -> list[str]:
        return [key for key, _ in islice(self.kept.newest_first(), max(offset, 0), max(offset, 0) + max(count, 0))]

    async def names(self) -> list[str]:
        return [key for key, _ in self.kept.newest_first()]

    async def mark(self, key: str, value: str | None) -> None:
        if value is None:
            self.marks.pop(key, None)
        elif key in self.kept:
            self.marks[key] = value

    async def marked(self, key: str) -> str | None:
        return self.marks.get(key)


class LocalState:
    """Sessions, journal and stored objects of this process."""

    kind = "in process"

    def __init__(self, registry: ScenarioRegistry, clock: Clock, journal: Journal, sessions: SessionStore) -> None:
        self.registry = registry
        self.clock = clock
        self.ring = journal
        self.sessions = sessions
        self.stores: list[Resettable] = []
        self.book = StateBook()
        """The scenario states of every session (and the server-wide ones)."""
        sessions.forgotten = self.forgotten
        self.account = Ledger()
        """The Platform API's ledger."""
        self.standing = Misbehaving()
        """The faults sessions asked for through the control API."""
        self.calls: dict[str, deque[float]] = {}
        """When each call of a shared limit's last window came (`take_call`)."""
        self.seen: dict[str, float] = {}
        """When each name `first_seen` was asked of was first seen."""

    def forgotten(self, name: str) -> None:
        """A session the store let go of starts over: its objects go too (kept under ids its
        numbers, restarted, would make again)."""
        for store in self.stores:
            store.reset(name)

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def number(self, received: int) -> int:
        return received

    def arrived(self, entry: JournalEntry) -> None:
        self.ring.add(entry)  # visible at once; filled in as the request moves along

    async def finish(
        self, request: web.Request, entry: JournalEntry, journaled: bool, response: web.StreamResponse
    ) -> web.StreamResponse:
        return response

    async def dropped(self, request: web.Request, entry: JournalEntry, journaled: bool) -> None:
        return None

    def visit(self, name: str) -> None:
        self.sessions.get(name)

    async def admit_session(self, request: web.Request, entry: JournalEntry, key: str, prompt: int) -> Admitted:
        assert entry.session is not None
        session = self.sessions.get(entry.session)
        scenarios = self.registry.current.scenarios
        if scenarios.gateway.active:
            gate = admit_key(scenarios.gateway, session.gateway, key, prompt, self.clock.now())
        else:
            gate = {}
            session.gateway.arrivals += 1
        return Admitted(session, gate, scenarios, self.standing.get(session.name))

    async def claim(
        self, session: Session, selection: Selection | None, again: Callable[[], Selection | None]
    ) -> Selection | None:
        return selection  # one event loop: nothing else moves the position between match and commit

    async def save(self, session: Session) -> None:
        return None

    def keep_generation(self, record: Generation) -> None:
        return None  # `Core.generations` holds it

    async def generation(self, name: str) -> Generation | None:
        return None

    async def spent(self, name: str, api_key: str) -> float:
        return float(self.sessions.get(name).gateway.spent.get(api_key, 0.0))

    def objects(self, decode: Callable[[bytes], S]) -> ObjectStore[S]:
        store: LocalObjects[S] = LocalObjects(decode)
        self.stores.append(store)
        return store

    def count(self, spend: Spend) -> None:
        self.account.apply(spend)

    async def ledger(self) -> Ledger:
        return self.account

    async def misbehave(self, session: str, ask: Ask | None) -> None:
        self.standing.set(session, ask)

    async def misbehaving(self) -> dict[str, Ask]:
        return self.standing.asks()

    def shelf(self, name: str, bounds: ShelfBounds, decode: Callable[[bytes], S]) -> Shelf[S]:
        return LocalShelf(bounds)

    async def take_call(self, name: str, limit: int, window: float, now: float) -> float | None:
        calls = self.calls.setdefault(name, deque())
        while calls and calls[0] <= now - window:
            calls.popleft()
        if len(calls) >= limit:
            return calls[0] + window - now
        calls.append(now)
        return None

    async def first_seen(self, name: str, now: float) -> float:
        return self.seen.setdefault(name, now)

    def versions(self) -> dict[str, int]:
        return {"scenarios": self.registry.generation}

    def announcements(self) -> AsyncIterator[Row | None] | None:
        return None  # the journal's watchers are told of each finished entry

    async def session(self, name: str) -> Session | None:
        return self.sessions.find(name)

    async def total_hits(self) -> dict[str, int]:
        return self.sessions.total_hits()

    async def reset(self, name: str | None) -> int | None:
        if name is not None and name not in self.sessions:
            return None
        for store in self.stores:
            store.reset(name)
        return self.sessions.reset(name)

    async def journal(self, query: JournalQuery) -> list[Row]:
        return list(
            self.ring.entries(
                session=query.session,
                rule=query.rule,
                path=query.path,
                unmatched=query.unmatched,
                before=query.before,
                after=query.after,
            )
        )

    async def recent(self, newest: int | None) -> Iterable[Row]:
        return (entry for entry in self.ring.entries() if entry.finished is not None)

    async def journal_len(self) -> int:
        return len(self.ring)

    async def clear_journal(self, session: str | None) -> int:
        before = len(self.ring)
        self.ring.clear(session)
        return before - len(self.ring)

    async def read_clock(self) -> None:
        return None

    async def write_clock(self) -> None:
        return None

    async def read_scenarios(self) -> None:
        return None

    async def publish_scenarios(self) -> None:
        return None

    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        return {owner: self.book.of(owner) for owner in owners}

    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        return self.book.move(owner, scenario, seen, to, now)

    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None:
        self.book.put(owner, scenario, standing)

    async def all_states(self) -> dict[str, dict[str, Standing]]:
        return self.book.everything()

    async def reset_states(self, owner: str | None, scenario: str | None) -> int:
        return self.book.reset(owner, scenario)
