"""The one state backend: what the request path, the middleware, the faces, the control API and
the inspector ask of the state, wherever it lives.

Split by caller: `StateLifecycle` (start-up and shutdown), `EdgeState` (the middleware),
`RequestState` (the endpoint, the side routes and the faces) and `AdminState` (the control API and
the inspector); `State` is all four, as a backend implements it. Two implementations, chosen once by `create_app` (`server.app.state_for`) and kept under the `STATE`
key: `LocalState` (`server/state_local.py`) keeps everything in this process as live objects,
and `SharedState` (`server/state_shared.py`) keeps it where every worker and instance sees it
(`--state redis://…`, through `state.redis_store.RedisStore`). Nothing outside these two asks
which one it holds.

What lives in it: sessions (reply positions, routing counters, rate buckets, balances, chaos
counts), the journal's entries, the faces' stored objects (Responses' stored responses,
Anthropic's message threads and which of their messages were continued, ObjectiveAI's
completions, their training-table marks and validated Query Models), generation records for the
lookup, the Platform API's ledger, the sessions' standing faults, the frozen clock, and the
control API's scenarios with their version. The state numbers a journal entry (`seq`, request id,
time); everything else on the entry is written by the endpoint and the middleware.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from aiohttp import web

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.core.journal.ledger import Ledger
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.foundation.misbehaviours import Ask
from zenmux_emulator.state.scenario_states import Standing
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.state.spend import Spend


class Storable(Protocol):
    """An object a face keeps for a later request, written as bytes when the state is shared."""

    def encode(self) -> bytes: ...


S = TypeVar("S", bound=Storable)


class ObjectStore(Protocol[S]):
    """One face's stored objects, by session and id (reset with the session)."""

    async def get(self, session: str, key: str) -> S | None: ...

    def keep(self, session: str, key: str, value: S) -> None:
        """Keep it (a shared state writes it with the request's session changes, before the answer
        leaves), unless an object is kept under `key` already: another request's, never replaced
        (logged; a request's number, which ids are made from, is its own)."""

    async def delete(self, session: str, key: str) -> bool: ...

    async def once(self, session: str, key: str) -> bool:
        """Whether this is the first time `key` is asked for once, by any worker or instance."""


@dataclass(frozen=True, slots=True)
class ShelfBounds:
    """How many objects a shelf keeps, and how many bytes they may hold in all."""

    count: int
    size: int


class Shelf(Protocol[S]):
    """A face's objects by id for the whole server, bounded (`State.shelf`). Marks are short
    strings kept beside an object, forgotten with it."""

    async def get(self, key: str) -> S | None: ...

    def keep(self, key: str, value: S) -> None:
        """Keep it, in place of any kept under `key` (the oldest out past the bounds, their marks
        with them); a shared state writes it with the request's changes, before the answer leaves."""

    async def newest(self, offset: int, count: int) -> list[str]:
        """Ids, newest first."""

    async def names(self) -> list[str]: ...

    async def mark(self, key: str, value: str | None) -> None:
        """Set (None: remove) the mark of a kept object."""

    async def marked(self, key: str) -> str | None: ...


@dataclass(slots=True)
class Admitted:
    """A request the state let in: its session as it stands, the rate headers its answer carries,
    and the scenarios in force (a shared state may have brought newer ones). Slotted and not
    frozen, as the request's `Exchange` and its parts are (core/exchange.py)."""

    session: Session
    gate: dict[str, str]
    scenarios: ScenarioSet
    standing: Ask | None = None
    """The fault the session asked for through the control API, if any."""


@dataclass(frozen=True, slots=True)
class JournalQuery:
    """Which journal entries the control API asks for (each filter None: any)."""

    session: str | None = None
    rule: str | None = None
    path: str | None = None
    unmatched: bool = False
    before: int | None = None
    after: int | None = None


class Row(Protocol):
    """A journal entry as the control API and the inspector read it: live, or as stored."""

    @property
    def seq(self) -> int: ...

    def as_dict(self) -> dict[str, Any]: ...


class StateLifecycle(Protocol):
    """What the app's start-up and shutdown (`server.app.state_ctx`) ask of the state."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class EdgeState(Protocol):
    """What the journal middleware (`server/edge/middlewares.py`) asks of the state."""

    def number(self, received: int) -> int:
        """The `seq` of the entry of the `received`-th request (0: numbered when admitted or finished)."""

    def arrived(self, entry: JournalEntry) -> None:
        """A journaled request arrived: its entry is visible from now on, if the journal is kept here."""

    async def finish(
        self, request: web.Request, entry: JournalEntry, journaled: bool, response: web.StreamResponse
    ) -> web.StreamResponse:
        """Write what the request changed (and its entry) before the answer leaves; the answer to send."""

    async def dropped(self, request: web.Request, entry: JournalEntry, journaled: bool) -> None:
        """The connection closed before any response: write what the request changed, and its entry."""


class RequestState(Protocol):
    """What the request path asks of the state: the endpoint, the side routes and the faces."""

    def visit(self, name: str) -> None:
        """A request of this session was authenticated (a session in process is known from now on)."""

    async def admit_session(self, request: web.Request, entry: JournalEntry, key: str, prompt: int) -> Admitted:
        """Open the request's session and take it through the gateway's limits and balance (429 and
        402 raised as `RequestRejected`)."""

    async def claim(
        self, session: Session, selection: Selection | None, again: Callable[[], Selection | None]
    ) -> Selection | None:
        """A selection of a `positional` rule (`CompiledRule.positional`) once its reply position is
        the request's own (matched `again` while another request in flight took it first)."""

    async def save(self, session: Session) -> None:
        """Write the session's changes now (a stream does, before its first byte)."""

    def keep_generation(self, record: Generation) -> None:
        """Keep a generation record where other workers look it up."""

    async def generation(self, name: str) -> Generation | None:
        """A generation record another worker or instance served (None: none, or none elsewhere)."""

    async def spent(self, name: str, api_key: str) -> float:
        """The credits a key spent in a session."""

    def count(self, spend: Spend) -> None:
        """Add a served completion's spend to the Platform API's ledger (a shared state writes it
        with the request's changes, before the answer leaves)."""

    async def ledger(self) -> Ledger:
        """The account's ledger as it stands, every worker's and instance's completions counted."""

    def shelf(self, name: str, bounds: ShelfBounds, decode: Callable[[bytes], S]) -> Shelf[S]:
        """Objects kept by id for the whole server (not per session), bounded by count and bytes
        (oldest out first); `name` tells one shelf from another in a shared store."""

    async def take_call(self, name: str, limit: int, window: float, now: float) -> float | None:
        """Count a call in the `window` seconds to `now` of a limit shared by every worker and
        instance (the Platform API's `/usage` and `/cost`): None; past `limit`, not counted, the
        seconds until the window's oldest call leaves it (on the emulator's clock)."""

    async def first_seen(self, name: str, now: float) -> float:
        """When `name` was first seen by any worker or instance (`now`, if this is the first time)."""

    def objects(self, decode: Callable[[bytes], S]) -> ObjectStore[S]:
        """A face's store of objects; `decode` reads one written by `encode`."""

    # scenario states (`scenario`, `when_state`, `set_state`), by owner: a session, or `SERVER_WIDE`
    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        """The stored standings of each owner (a scenario not listed stands at `started`)."""

    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        """Move the scenario to `to` atomically if it stands at `seen` at `now` (None); else the
        state it stands at, which another request moved it to (match again)."""


class AdminState(Protocol):
    """What the control API and the inspector read and change."""

    kind: str
    """How `/health` names it: `in process` or `shared`."""

    def versions(self) -> dict[str, int]:
        """The versions of what this process holds of the state (`/_emulator/health`): a test can
        tell every worker and instance has caught up."""

    def announcements(self) -> AsyncIterator[Row | None] | None:
        """The journal's entries as they finish anywhere, for the inspector's live lists (None: the
        journal is this process's, whose watchers are told instead). A None in it: some may have
        been missed (a dropped subscription), look at the journal."""

    async def misbehave(self, session: str, ask: Ask | None) -> None:
        """Ask for a fault on every request of the session, whichever process answers (None: stop)."""

    async def misbehaving(self) -> dict[str, Ask]:
        """The sessions' standing fault asks."""

    async def session(self, name: str) -> Session | None:
        """A session as it stands (a copy when shared), or None when no request has used it."""

    async def total_hits(self) -> dict[str, int]: ...

    async def reset(self, name: str | None) -> int | None:
        """Restart one session (its counters and stored objects) or every one; how many (None: unknown)."""

    async def journal(self, query: JournalQuery) -> list[Row]:
        """The entries that match, in arrival order."""

    async def recent(self, newest: int | None) -> Iterable[Row]:
        """The finished entries, for the inspector: all of them (None), or (a store's journal may be
        large) the `newest` that finished last; a journal in process always gives all of them."""

    async def journal_len(self) -> int: ...

    async def clear_journal(self, session: str | None) -> int: ...

    async def read_clock(self) -> None:
        """Take the clock as the state has it (another worker may have moved it)."""

    async def write_clock(self) -> None:
        """Put the clock, as changed here, in force everywhere."""

    async def read_scenarios(self) -> None:
        """Before the scenarios are read or changed: take any newer ones."""

    async def publish_scenarios(self) -> None:
        """After a change of the scenarios here: every other worker and instance takes it."""

    # scenario states (`scenario`, `when_state`, `set_state`), by owner: a session, or `SERVER_WIDE`
    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None:
        """Set a standing (the control API's jump); None puts it back to `started`."""

    async def all_states(self) -> dict[str, dict[str, Standing]]:
        """Every owner's stored standings, for the control API and the inspector."""

    async def reset_states(self, owner: str | None, scenario: str | None) -> int:
        """Put one scenario (None: all) of one owner (None: every one) back to `started`; how many moved."""


class State(StateLifecycle, EdgeState, RequestState, AdminState, Protocol):
    """The whole state, as a backend implements it: every caller's part. Cheap calls in process, a
    round trip each when shared."""
