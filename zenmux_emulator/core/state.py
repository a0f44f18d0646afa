"""The one state backend: what the request path, the middleware, the faces, the control API and
the inspector ask of the state, wherever it lives.

Two implementations, chosen once by `create_app` (`server.app.state_for`) and kept under the `STATE`
key: `LocalState` (`server/state_local.py`) keeps everything in this process as live objects,
and `SharedState` (`server/state_shared.py`) keeps it where every worker and instance sees it
(`--state redis://…`, through `state.redis_store.RedisStore`). Nothing outside these two asks
which one it holds.

What lives in it: sessions (reply positions, routing counters, rate buckets, balances, chaos
counts), the journal's entries, the faces' stored objects (Responses' stored responses,
Anthropic's message threads), generation records for the lookup, the frozen clock, and the
control API's scenarios with their version. The state numbers a journal entry (`seq`, request id,
time); everything else on the entry is written by the endpoint and the middleware.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from aiohttp import web

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.state.scenario_states import Standing
from zenmux_emulator.state.sessions import Session


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

    def once(self, session: str, key: str) -> bool:
        """Whether this is the first time `key` is asked for once (a shared state does not track
        it across workers: always True there)."""


@dataclass(slots=True)
class Admitted:
    """A request the state let in: its session as it stands, the rate headers its answer carries,
    and the scenarios in force (a shared state may have brought newer ones). Slotted and not
    frozen, as the endpoint's step values are (core/endpoint.py says why)."""

    session: Session
    gate: dict[str, str]
    scenarios: ScenarioSet


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


class State(Protocol):
    """The state's operations: cheap calls in process, a round trip each when shared."""

    kind: str
    """How `/health` names it: `in process` or `shared`."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    # the middleware
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

    # the request path
    def visit(self, name: str) -> None:
        """A request of this session was authenticated (a session in process is known from now on)."""

    async def admit(self, request: web.Request, entry: JournalEntry, key: str, prompt: int) -> Admitted:
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

    def objects(self, decode: Callable[[bytes], S]) -> ObjectStore[S]:
        """A face's store of objects; `decode` reads one written by `encode`."""

    # the control API and the inspector
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
    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        """The stored standings of each owner (a scenario not listed stands at `started`)."""

    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        """Move the scenario to `to` atomically if it stands at `seen` at `now` (None); else the
        state it stands at, which another request moved it to (match again)."""

    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None:
        """Set a standing (the control API's jump); None puts it back to `started`."""

    async def all_states(self) -> dict[str, dict[str, Standing]]:
        """Every owner's stored standings, for the control API and the inspector."""

    async def reset_states(self, owner: str | None, scenario: str | None) -> int:
        """Put one scenario (None: all) of one owner (None: every one) back to `started`; how many moved."""
