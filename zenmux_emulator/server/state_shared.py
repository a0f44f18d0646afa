"""The state every worker and instance shares (`--state redis://…`), over a `SharedStore`
(`state/shared.py`, implemented by `state/redis_store.py`).

A request takes two round trips: `admit_session` opens its session in the store (journal number, the
session's counters, rate buckets, balance and chaos count, atomically, bringing newer scenarios
and the clock along) before it is matched, `finish` writes the session's changes, the journal
entry and the objects kept meanwhile before its answer leaves; a stream saves its changes before
its first byte and its journal entry after its last. A position of a reply sequence is `claim`ed
in the store, so requests in flight never share one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Generic

import orjson
from aiohttp import web

from zenmux_emulator.core.gateway.admission import admission_ask, admitted
from zenmux_emulator.core.journal.entry import NO_MATCH, JournalEntry
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.core.journal.ledger import Ledger
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.spec import REGISTERED, FaceSpec, envelope_for
from zenmux_emulator.core.state import Admitted, JournalQuery, ObjectStore, Row, S, Shelf, ShelfBounds
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import INTERNAL, RequestRejected
from zenmux_emulator.foundation.ids import request_id
from zenmux_emulator.foundation.misbehaviours import Ask
from zenmux_emulator.server.edge.middlewares import REQUEST_ID_HEADER
from zenmux_emulator.state.misbehaving import decode_ask, encode_ask
from zenmux_emulator.state.outage import STATE_UNAVAILABLE
from zenmux_emulator.state.scenario_states import Standing
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.state.shared import Opened, ScenariosBehind, SharedStore, StaleScenarios, StateLost
from zenmux_emulator.state.spend import Spend
from zenmux_emulator.write.json import error_response

log = logging.getLogger("emulator.state")

SHARED_SESSION = web.RequestKey("shared_session", Session)
"""The session `admit_session` read: `finish` writes its changes with the journal entry."""
SYNC_TRIES = 5
CLAIM_TRIES = 64
"""Positions a request may find taken before it gives up: each one was served to another request."""


class StoredRow:
    """A journal entry as the store keeps it (its JSON object), read as a live entry is."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getattr__(self, name: str) -> Any:
        return self.data.get(name)

    @property
    def seq(self) -> int:
        return int(self.data.get("seq") or 0)

    @property
    def unmatched(self) -> bool:
        """`JournalEntry.unmatched`, read off the stored entry."""
        data = self.data
        return (
            data.get("api") is not None
            and data.get("rule") is None
            and data.get("error_type") in (None, NO_MATCH)
            and not data.get("unscripted")
        )

    @property
    def response(self) -> bytes | list[bytes] | None:
        """The response as a live entry holds it: a JSON body's bytes (stored parsed, or as text when it was
        not JSON), or the SSE events sent."""
        response = self.data.get("response")
        if isinstance(response, dict):  # a JSON body is stored parsed
            return orjson.dumps(response)
        if isinstance(response, str):
            return response.encode()
        if isinstance(response, list):
            return [event.encode() for event in response if isinstance(event, str)]
        return None

    def sent_events(self) -> list[bytes]:
        """The SSE events the client got (the store keeps only those), as `JournalEntry.sent_events`."""
        response = self.response
        return response if isinstance(response, list) else []

    def as_dict(self) -> dict[str, Any]:
        return self.data


def matches(row: StoredRow, query: JournalQuery) -> bool:
    return (
        (query.session is None or row.data.get("session") == query.session)
        and (query.rule is None or row.data.get("rule") == query.rule)
        and (query.path is None or row.data.get("path") == query.path)
        and (not query.unmatched or row.unmatched)
        and (query.before is None or row.seq < query.before)
        and (query.after is None or row.seq > query.after)
    )


class SharedObjects(Generic[S]):
    """A face's objects in the store, written as bytes with the request's session changes."""

    def __init__(self, store: SharedStore, decode: Callable[[bytes], S]) -> None:
        self.store = store
        self.decode = decode

    async def get(self, session: str, key: str) -> S | None:
        blob = await self.store.response(session, key)
        return self.decode(blob) if blob is not None else None

    def keep(self, session: str, key: str, value: S) -> None:
        self.store.keep_response(session, key, value.encode())

    async def delete(self, session: str, key: str) -> bool:
        return await self.store.delete_response(session, key)

    async def once(self, session: str, key: str) -> bool:
        return await self.store.once(session, key)


class SharedShelf(Generic[S]):
    """A face's objects by id in the store, bounded there as in process (`SHELF_KEEP`)."""

    def __init__(self, store: SharedStore, name: str, bounds: ShelfBounds, decode: Callable[[bytes], S]) -> None:
        self.store = store
        self.name = name
        self.bounds = bounds
        self.decode = decode

    async def get(self, key: str) -> S | None:
        blob = await self.store.shelf_get(self.name, key)
        return self.decode(blob) if blob is not None else None

    def keep(self, key: str, value: S) -> None:
        self.store.shelf_keep(self.name, key, value.encode(), self.bounds.count, self.bounds.size)

    async def newest(self, offset: int, count: int) -> list[str]:
        return await self.store.shelf_newest(self.name, offset, count)

    async def names(self) -> list[str]:
        return await self.store.shelf_newest(self.name, 0, self.bounds.count)

    async def mark(self, key: str, value: str | None) -> None:
        await self.store.shelf_mark(self.name, key, value)

    async def marked(self, key: str) -> str | None:
        return await self.store.shelf_marked(self.name, key)


class SharedState:
    """The state in a `SharedStore`, with this worker's copy of the scenarios and clock kept in step."""

    kind = "shared"

    def __init__(self, store: SharedStore, registry: ScenarioRegistry, clock: Clock, seed: int) -> None:
        self.store = store
        self.registry = registry
        self.clock = clock
        self.seed = seed
        self.start_clock = clock.frozen_at

    async def start(self) -> None:
        """The store answers before the app serves (a wrong URL stops start-up)."""
        await self.store.start(self.start_clock)

    async def close(self) -> None:
        await self.store.close()

    def number(self, received: int) -> int:
        return 0  # numbered by the store

    def arrived(self, entry: JournalEntry) -> None:
        return None  # the store keeps the entry when it finishes

    async def finish(
        self, request: web.Request, entry: JournalEntry, journaled: bool, response: web.StreamResponse
    ) -> web.StreamResponse:
        """Number the entry (unless `admit_session` did), then write the session's changes and the entry
        before the answer leaves; a store that fails turns the answer into its 503 (an outage) or a
        500, in the envelope of the face the path is under. A request already answered the
        outage's 503 before it was numbered is not tried again: it would wait for Redis twice."""
        if entry.error_type == STATE_UNAVAILABLE and not entry.seq:
            return response
        try:
            await self._finish(request, entry, journaled, response)
        except RequestRejected as exc:  # the store's outage (warned of once, not per request)
            if response.prepared:
                raise
            return self._failed(request, entry, exc.status, exc.type, exc.message)
        except Exception:
            log.exception("the shared state failed while finishing request %s", entry.request_id or "-")
            if response.prepared:
                raise
            message = "The emulator's shared state (--state) failed; see its log"
            return self._failed(request, entry, 500, INTERNAL, message)
        return response

    async def dropped(self, request: web.Request, entry: JournalEntry, journaled: bool) -> None:
        try:
            await self._finish(request, entry, journaled, None)
        except RequestRejected:  # the store's outage (warned of once, not per request)
            raise
        except Exception:
            log.exception("the shared state failed while finishing request %s", entry.request_id or "-")
            raise

    async def _finish(
        self, request: web.Request, entry: JournalEntry, journaled: bool, response: web.StreamResponse | None
    ) -> None:
        if not entry.seq:
            entry.seq = await self.store.next_seq()
            entry.request_id = request_id(self.seed, entry.seq)
        if response is not None and not response.prepared:
            response.headers.setdefault(REQUEST_ID_HEADER, entry.request_id)
            response.headers.setdefault("x-request-id", entry.request_id)
        entry.finished = time.perf_counter()
        await self.store.finish(request.get(SHARED_SESSION), entry.as_dict() if journaled else None)

    @staticmethod
    def _failed(request: web.Request, entry: JournalEntry, status: int, type: str, message: str) -> web.StreamResponse:
        entry.error_type = type
        faces: tuple[FaceSpec, ...] = request.config_dict.get(REGISTERED, ())
        envelope = envelope_for(faces, request.path) or error_body
        response = error_response(status, envelope(status, type, message))
        entry.status = response.status
        return response

    def visit(self, name: str) -> None:
        return None  # the store knows a session from its first `admit_session`

    async def sync(self) -> None:
        """Take the control API's scenarios (and re-read the files) as the store has them now, or
        put this worker's back when the store's are older (it was emptied meanwhile). A store at
        this worker's version costs one small read."""
        stored = await self.store.stored_version()
        if stored < self.store.scenarios_version:
            await self.store.reassert_scenarios(self.registry.api_sources)
        elif stored != self.store.scenarios_version:
            version, api = await self.store.api_scenarios()
            await self.registry.sync(api)
            self.store.scenarios_version = version
            log.info("scenarios synced to version %d of the shared state", version)

    async def _open(self, name: str, key: str, prompt: int) -> Opened:
        for _ in range(SYNC_TRIES):
            gateway = self.registry.current.scenarios.gateway
            ask = admission_ask(gateway, key, prompt) if gateway.active else None
            try:
                return await self.store.open(name, ask, time.time())
            except StaleScenarios:
                await self.sync()
            except ScenariosBehind:  # emptied and restored by a worker that had older scenarios
                await self.store.reassert_scenarios(self.registry.api_sources)
            except StateLost:  # Redis restarted empty, or flushed: what this worker has in force, again
                await self.store.restore(self.clock.frozen_at, self.registry.api_sources)
        raise RuntimeError("the shared scenarios kept changing while a request was opened")

    async def admit_session(self, request: web.Request, entry: JournalEntry, key: str, prompt: int) -> Admitted:
        assert entry.session is not None
        opened = await self._open(entry.session, key, prompt)
        self.clock.frozen_at = opened.frozen_at
        entry.seq, entry.request_id, entry.time = opened.seq, request_id(self.seed, opened.seq), self.clock.now()
        request[SHARED_SESSION] = opened.session
        scenarios = self.registry.current.scenarios
        gate = {}
        if scenarios.gateway.active and opened.admission is not None:
            ask = admission_ask(scenarios.gateway, key, prompt)
            gate = admitted(scenarios.gateway, ask, opened.admission)
        standing = decode_ask(opened.standing) if opened.standing else None
        return Admitted(opened.session, gate, scenarios, standing)

    async def claim(
        self, session: Session, selection: Selection | None, again: Callable[[], Selection | None]
    ) -> Selection | None:
        """When another request in flight took the position first, the request is matched `again`
        at the position stored now (issue 31)."""
        for _ in range(CLAIM_TRIES):
            if selection is None or not selection.rule.positional:
                return selection
            if await self.store.claim(session, selection.rule.name, selection.hit) is None:
                return selection
            selection = again()
        raise RequestRejected(
            503,
            "emulator_state_busy",
            f"{CLAIM_TRIES} reply positions were taken by other requests of this session while this one was matched",
        )

    async def save(self, session: Session) -> None:
        await self.store.save(session)

    def keep_generation(self, record: Generation) -> None:
        self.store.keep_generation(record.ids, record.blob())

    async def generation(self, name: str) -> Generation | None:
        blob = await self.store.generation(name)
        return Generation.of_blob(blob) if blob is not None else None

    async def spent(self, name: str, api_key: str) -> float:
        return await self.store.spent(name, api_key)

    def objects(self, decode: Callable[[bytes], S]) -> ObjectStore[S]:
        return SharedObjects(self.store, decode)

    def count(self, spend: Spend) -> None:
        self.store.keep_spend(spend)

    async def ledger(self) -> Ledger:
        return Ledger.of(await self.store.ledger())

    async def misbehave(self, session: str, ask: Ask | None) -> None:
        await self.store.set_ask(session, None if ask is None else encode_ask(ask))

    async def misbehaving(self) -> dict[str, Ask]:
        return {name: decode_ask(blob) for name, blob in sorted((await self.store.asks()).items())}

    def shelf(self, name: str, bounds: ShelfBounds, decode: Callable[[bytes], S]) -> Shelf[S]:
        return SharedShelf(self.store, name, bounds, decode)

    async def take_call(self, name: str, limit: int, window: float, now: float) -> float | None:
        return await self.store.take_call(name, limit, window, now)

    async def first_seen(self, name: str, now: float) -> float:
        return await self.store.first_seen(name, now)

    def versions(self) -> dict[str, int]:
        return {"scenarios": self.store.scenarios_version}

    async def announcements(self) -> AsyncIterator[Row | None]:
        async with contextlib.aclosing(self.store.announcements()) as announced:
            async for blob in announced:
                yield None if blob is None else StoredRow(orjson.loads(blob))

    async def session(self, name: str) -> Session | None:
        if not await self.store.known(name):
            return None
        session = Session(name)
        session.hits.update(await self.store.hits(name))
        return session

    async def total_hits(self) -> dict[str, int]:
        return await self.store.total_hits()

    async def reset(self, name: str | None) -> int | None:
        if name is not None and not await self.store.known(name):
            return None
        return await self.store.reset(name)

    async def journal(self, query: JournalQuery) -> list[Row]:
        rows = (StoredRow(entry) for entry in await self.store.journal())
        return [row for row in rows if matches(row, query)]

    async def recent(self, newest: int | None) -> Iterable[Row]:
        return [StoredRow(entry) for entry in await self.store.journal(newest)]

    async def journal_len(self) -> int:
        return await self.store.journal_len()

    async def clear_journal(self, session: str | None) -> int:
        return await self.store.clear_journal(session)

    async def read_clock(self) -> None:
        self.clock.frozen_at = await self.store.clock()

    async def write_clock(self) -> None:
        await self.store.set_clock(self.clock.frozen_at)

    async def read_scenarios(self) -> None:
        await self.sync()

    async def publish_scenarios(self) -> None:
        await self.store.publish_scenarios(self.registry.api_sources)

    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        return await self.store.standings(owners)

    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        return await self.store.move_state(owner, scenario, seen, to, now)

    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None:
        await self.store.put_state(owner, scenario, standing)

    async def all_states(self) -> dict[str, dict[str, Standing]]:
        return await self.store.all_states()

    async def reset_states(self, owner: str | None, scenario: str | None) -> int:
        return await self.store.reset_states(owner, scenario)
