"""The inspector's live list, fed once per process however many tabs are open, and pushed, never
polled: in process, each finished entry is pushed to the open tabs as the journal settles it; under
`--state`, the store announces each entry it journals (Redis pub/sub), whichever worker or instance
answered, and one subscription per process feeds every tab. An idle tab costs nothing but its
check a second that it is still open. In case an announcement is lost, the feed looks at the
shared journal once after (re)subscribing and `LOOK_S` after an announcement (one look for a burst
of them): never while nothing happens. Each row is encoded once for every tab."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.state import AdminState, Row
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.server.inspector.rows import row

log = logging.getLogger("zenmux_emulator.inspector")

LOOK_S = 2.0
"""Under --state, how long after an announcement the feed looks at the shared journal for any it missed."""
RECENT = 100
"""Under --state, the entries that finished last a look reads (all of them after a subscription dropped)."""
SENT_KEPT = 20_000
"""The `seq`s the feed (and a tab) remembers having sent, at most (then it keeps the newest half)."""
LISTS_MAX = 64
"""Live lists open at once in one process; the next is refused with a 503 until one closes."""
WAITING_MAX = 10_000
"""Rows a tab may have waiting unread; a tab that falls further behind is closed (the page reopens it)."""


def encoded(entry: Row) -> bytes:
    """One `row` event of the live list."""
    return b"event: row\ndata: " + orjson.dumps(row(entry.as_dict())) + b"\n\n"


class Sent:
    """The `seq`s of the rows sent (by the feed, or to a tab), each with its row's hash, at most
    `SENT_KEPT` (then the newest half: one still journaled may be sent again). Another row under a
    `seq` sent is one of a shared store emptied since (Redis restarted empty, or flushed), which
    numbers its requests from 1 again: what was sent under that `seq` and after it is forgotten,
    those numbers being the new requests' now."""

    def __init__(self) -> None:
        self.marks: dict[int, int] = {}

    def first(self, seq: int, data: bytes) -> bool:
        """Whether this row is new (and so to be sent); it is remembered as sent."""
        mark, known = hash(data), self.marks.get(seq)
        if known == mark:
            return False
        if known is not None:  # numbered again from 1
            self.marks = {kept: hashed for kept, hashed in self.marks.items() if kept < seq}
        self.marks[seq] = mark
        if len(self.marks) > SENT_KEPT:
            self.marks = {kept: self.marks[kept] for kept in sorted(self.marks)[-SENT_KEPT // 2 :]}
        return True

    def renumbered(self, seq: int, data: bytes) -> bool:
        """Whether another row was sent under this `seq` (the store was emptied since)."""
        known = self.marks.get(seq)
        return known is not None and known != hash(data)


@dataclass(eq=False)
class Listener:
    """One open live list: the rows waiting for it, newer than the `seq` it asked to start after."""

    after: int
    waiting: list[tuple[int, bytes]] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    overrun: bool = False

    def offer(self, seq: int, data: bytes) -> None:
        if seq <= self.after:
            return
        if len(self.waiting) >= WAITING_MAX:
            self.overrun = True
        else:
            self.waiting.append((seq, data))
        self.ready.set()

    def take(self) -> list[tuple[int, bytes]]:
        waiting, self.waiting = self.waiting, []
        self.ready.clear()
        return waiting


class LiveFeed:
    """The open live lists of this process and the one source that feeds them all."""

    def __init__(self, state: AdminState, journal: Journal) -> None:
        self.state = state
        self.journal = journal
        self.local = state.kind == "in process"
        self.listeners: set[Listener] = set()
        self.task: asyncio.Task[None] | None = None
        self.looking: asyncio.Task[None] | None = None
        self.sent = Sent()
        """Under --state, the `seq`s offered already (an announcement and a look may bring one twice)."""

    def join(self, after: int) -> Listener:
        """A new live list (503 past `LISTS_MAX`); from now on it is offered every entry that finishes."""
        if len(self.listeners) >= LISTS_MAX:
            raise RequestRejected(
                503, "service_unavailable", f"{LISTS_MAX} inspector live lists are open already; close a tab"
            )
        listener = Listener(after)
        self.listeners.add(listener)
        if self.local:
            if self.settled not in self.journal.watchers:
                self.journal.watchers.append(self.settled)
        elif self.task is None:
            self.task = asyncio.create_task(self.listen())
        return listener

    def leave(self, listener: Listener) -> None:
        self.listeners.discard(listener)
        if self.listeners:
            return
        if self.settled in self.journal.watchers:
            self.journal.watchers.remove(self.settled)
        for task in (self.task, self.looking):
            if task is not None:
                task.cancel()
        self.task = self.looking = None

    async def close(self) -> None:
        """Shutdown: stop listening (the tabs end with the server's waits)."""
        self.listeners.clear()
        for task in (self.task, self.looking):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self.task = self.looking = None

    def offer(self, entry: Row, data: bytes | None = None) -> None:
        data = encoded(entry) if data is None else data
        for listener in self.listeners:
            listener.offer(entry.seq, data)

    def settled(self, entry: JournalEntry) -> None:
        """The journal's watcher in process: a finished entry, offered to every open list."""
        try:
            self.offer(entry)
        except Exception:  # a row that cannot be shown must not fail the request it journals
            log.exception("the inspector could not list request %s", entry.request_id)

    def fresh(self, entry: Row) -> None:
        """Under --state: an entry offered unless it was already. One of a store emptied since is
        offered to every open list, whatever `seq` it asked to start after."""
        data = encoded(entry)
        if self.sent.renumbered(entry.seq, data):
            log.info("the shared journal was emptied and numbers its requests from 1 again")
            for listener in self.listeners:
                listener.after = 0
        if self.sent.first(entry.seq, data):
            self.offer(entry, data)

    async def listen(self) -> None:
        """Under --state: the store's announcements, for as long as a tab is open."""
        announced = self.state.announcements()
        if announced is None:
            return
        first = True
        async for entry in announced:
            if entry is None:  # (re)subscribed: what finished meanwhile was not announced here
                self.look_later(0.0, everything=not first)
                first = False
                continue
            try:
                self.fresh(entry)
            except Exception:
                log.exception("the inspector could not list request %s", entry.as_dict().get("request_id"))
            self.look_later(LOOK_S, everything=False)

    def look_later(self, delay: float, everything: bool) -> None:
        """One look at the shared journal `delay` seconds from now, unless one is on its way."""
        if self.looking is None or self.looking.done():
            self.looking = asyncio.create_task(self.look(delay, everything))

    async def look(self, delay: float, everything: bool) -> None:
        """The shared journal's newest entries (all of them after a dropped subscription), any not
        offered yet offered now."""
        await asyncio.sleep(delay)
        try:
            for entry in await self.state.recent(None if everything else RECENT):
                self.fresh(entry)
        except RequestRejected:  # the store's outage: said once by the state; the next announcement looks again
            pass
