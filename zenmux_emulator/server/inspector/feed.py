"""The inspector's live list, fed once per process however many tabs are open: in process, each
finished entry is pushed to the open tabs as the journal settles it (nothing is polled, and an idle
tab costs nothing); under `--state`, one look at the shared journal every `POLL_S` while any tab is
open, whatever their number. Each row is encoded once for every tab."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.state import Row, State
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.server.inspector.rows import row

log = logging.getLogger("zenmux_emulator.inspector")

POLL_S = 0.25
"""Under --state, how often the process looks at the shared journal while a live list is open."""
RECENT = 100
"""Under --state, the entries that finished last each look reads (all of them after a busy look)."""
SENT_KEPT = 20_000
"""The `seq`s the feed (and a tab) remembers having sent, at most (then it keeps the newest half)."""
LISTS_MAX = 64
"""Live lists open at once in one process; the next is refused with a 503 until one closes."""
WAITING_MAX = 10_000
"""Rows a tab may have waiting unread; a tab that falls further behind is closed (the page reopens it)."""


def encoded(entry: Row) -> bytes:
    """One `row` event of the live list."""
    return b"event: row\ndata: " + orjson.dumps(row(entry.as_dict())) + b"\n\n"


def forget_oldest(sent: set[int]) -> set[int]:
    """The newest half of `sent` once it holds more than `SENT_KEPT` (one still journaled may be sent again)."""
    return set(sorted(sent)[-SENT_KEPT // 2 :]) if len(sent) > SENT_KEPT else sent


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

    def __init__(self, state: State, journal: Journal) -> None:
        self.state = state
        self.journal = journal
        self.local = state.kind == "in process"
        self.listeners: set[Listener] = set()
        self.task: asyncio.Task[None] | None = None

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
            self.task = asyncio.create_task(self.poll())
        return listener

    def leave(self, listener: Listener) -> None:
        self.listeners.discard(listener)
        if self.listeners:
            return
        if self.settled in self.journal.watchers:
            self.journal.watchers.remove(self.settled)
        if self.task is not None:
            self.task.cancel()
            self.task = None

    async def close(self) -> None:
        """Shutdown: stop looking (the tabs end with the server's waits)."""
        self.listeners.clear()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    def offer(self, entry: Row) -> None:
        data = encoded(entry)
        for listener in self.listeners:
            listener.offer(entry.seq, data)

    def settled(self, entry: JournalEntry) -> None:
        """The journal's watcher in process: a finished entry, offered to every open list."""
        try:
            self.offer(entry)
        except Exception:  # a row that cannot be shown must not fail the request it journals
            log.exception("the inspector could not list request %s", entry.request_id)

    async def poll(self) -> None:
        """Under --state: the shared journal's newest entries, looked at once per `POLL_S` for every tab."""
        sent: set[int] = set()
        everything = False
        while self.listeners:
            try:
                fresh = 0
                for entry in await self.state.recent(None if everything else RECENT):
                    if entry.seq not in sent:
                        sent.add(entry.seq)
                        fresh += 1
                        self.offer(entry)
                # every one of the newest was new: more may have finished in between, so look at all next time
                everything = fresh >= RECENT
                sent = forget_oldest(sent)
            except RequestRejected:  # the store's outage: said once by the state, looked at again later
                pass
            await asyncio.sleep(POLL_S)
