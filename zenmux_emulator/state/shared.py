"""What a shared store (`--state`) offers, one round trip an operation: the backend of
`server/state_shared.py` `SharedState`, one of the two implementations of the request path's one
state interface (`core/state.py`; the other keeps the state in this process). Implemented in
Redis by `state/redis_store.py`.

A request takes two round trips: `open` (journal number, the session's counters, rate buckets,
balance and chaos count, atomically) before it is matched, `finish` (the session's changes, the
journal entry, stored objects) before its answer leaves; a stream saves its changes before its
first byte and its journal entry after its last.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from zenmux_emulator.state.scenario_states import Standing
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.state.spend import Spend, StoredLedger


@dataclass(frozen=True, slots=True)
class BucketAsk:
    """One rate bucket a request takes from: `need` out of `capacity` per `window` seconds."""

    kind: str
    capacity: int
    need: int
    window: float


@dataclass(frozen=True, slots=True)
class AdmissionAsk:
    """What a metered request asks of the gateway: its key's buckets and balance (None: unlimited)."""

    key: str
    buckets: tuple[BucketAsk, ...]
    balance: float | None


@dataclass(frozen=True, slots=True)
class Admission:
    """The verdict on an `AdmissionAsk`: `ok`, `limited` (429, wait `wait` seconds) or `broke` (402),
    with each bucket's level after it."""

    verdict: str
    levels: dict[str, float] = field(default_factory=dict)
    wait: float = 0.0


@dataclass(slots=True)
class Opened:
    """What `open` returns: the request's journal number, the session as it stands (changes to it
    are written by `save`/`finish`), the admission (None when not metered) and the shared clock."""

    seq: int
    session: Session
    admission: Admission | None
    frozen_at: float | None
    standing: str | None = None
    """The session's standing fault ask as the store keeps it (`state.misbehaving.encode_ask`)."""


class StateUnavailable(RuntimeError):
    """The shared store did not answer at start-up (its URL is shown without a password)."""


class StateLost(Exception):
    """The store was emptied since this worker started (Redis restarted without its data, or
    flushed): `restore` it, then open again."""


class StaleScenarios(Exception):
    """The control API changed the scenarios since this worker last looked: sync, then open again."""

    def __init__(self, version: int) -> None:
        super().__init__(f"scenarios are at version {version}")
        self.version = version


class ScenariosBehind(Exception):
    """The store holds the control API's scenarios at an older version than this worker (emptied
    and restored by a worker that had not taken the newest, or restarted from an older snapshot):
    re-assert this worker's, then open again."""

    def __init__(self, version: int) -> None:
        super().__init__(f"the store's scenarios are at version {version}")
        self.version = version


class SharedStore(Protocol):
    """The shared state's operations, one round trip each."""

    scenarios_version: int
    """The version of the control API's scenarios this worker has in force."""

    async def start(self, clock: float | None) -> None:
        """Check the store answers; freeze its clock at `clock` unless another worker did."""

    async def close(self) -> None: ...

    async def open(self, name: str, ask: AdmissionAsk | None, now: float) -> Opened:
        """Raises StaleScenarios (having changed nothing) when the scenarios moved on,
        ScenariosBehind when the store's are older than this worker's, StateLost when the store was
        emptied."""

    async def restore(self, frozen_at: float | None, api: Mapping[str, str]) -> bool:
        """Mark an emptied store as the emulator's again with this clock and these control-API
        scenarios, unless another worker did first; whether this one did (and logged what was lost)."""

    async def claim(self, session: Session, rule: str, hit: int) -> int | None:
        """Take position `hit` of the rule's reply sequence in the session, atomically: None when
        taken (the stored position is now `hit + 1`); else the position stored now, which another
        request moved on (the session's `hits` hold it, to match again)."""

    async def next_seq(self) -> int: ...

    async def save(self, session: Session) -> None:
        """Write the session's changes since `open` (and responses kept meanwhile) now."""

    async def finish(self, session: Session | None, entry: Mapping[str, Any] | None) -> None:
        """Write the session's changes, the journal entry and the responses kept meanwhile."""

    async def journal(self, newest: int | None = None) -> list[dict[str, Any]]:
        """The entries in `seq` order: all of them, or the `newest` that finished last."""

    async def journal_len(self) -> int: ...

    async def clear_journal(self, session: str | None) -> int: ...

    async def known(self, name: str) -> bool: ...

    async def hits(self, name: str) -> dict[str, int]: ...

    async def total_hits(self) -> dict[str, int]: ...

    async def reset(self, name: str | None) -> int:
        """Restart one session (counters and stored objects) or every one; how many were known."""

    async def spent(self, name: str, api_key: str) -> float:
        """The credits a key spent in a session."""

    async def clock(self) -> float | None: ...

    async def set_clock(self, frozen_at: float | None) -> None: ...

    async def api_scenarios(self) -> tuple[int, dict[str, str]]: ...

    async def stored_version(self) -> int:
        """The version of the control API's scenarios in the store (one small read)."""

    async def reassert_scenarios(self, api: Mapping[str, str]) -> bool:
        """Put these scenarios back at this worker's version if the store holds an older one;
        whether it did (and logged so)."""

    async def publish_scenarios(self, api: Mapping[str, str]) -> int:
        """Put these API scenarios in force everywhere; the new version."""

    def keep_response(self, session: str, response_id: str, blob: bytes) -> None:
        """Queue a stored response, written by the next `save` or `finish` unless one is stored
        under that id already (never replaced)."""

    async def response(self, session: str, response_id: str) -> bytes | None: ...

    async def delete_response(self, session: str, response_id: str) -> bool: ...

    def keep_generation(self, ids: tuple[str, ...], blob: bytes) -> None:
        """Queue a completion's generation record under each of its ids, written by the next
        `save` or `finish` (so it is there before the answer leaves)."""

    async def generation(self, name: str) -> bytes | None:
        """A generation record by one of its ids, while it is kept."""

    def keep_spend(self, spend: Spend) -> None:
        """Queue a completion's spend for the ledger, written by the next `save` or `finish`."""

    async def ledger(self) -> StoredLedger: ...

    async def set_ask(self, session: str, blob: bytes | None) -> None:
        """A session's standing fault ask (None: none), which `open` returns from now on."""

    async def asks(self) -> dict[str, bytes]: ...

    async def once(self, session: str, key: str) -> bool:
        """Whether `key` is asked for once the first time in the session (reset with it)."""

    def shelf_keep(self, shelf: str, key: str, blob: bytes, count: int, size: int) -> None:
        """Queue an object for a shelf bounded by `count` and `size`, written by the next `save`
        or `finish` (so it is there before the answer leaves)."""

    async def shelf_get(self, shelf: str, key: str) -> bytes | None: ...

    async def shelf_newest(self, shelf: str, offset: int, count: int) -> list[str]: ...

    async def shelf_mark(self, shelf: str, key: str, mark: str | None) -> None: ...

    async def shelf_marked(self, shelf: str, key: str) -> str | None: ...

    async def take_call(self, name: str, limit: int, window: float, now: float) -> float | None:
        """Count a call of a shared limit in its window, atomically: None; past `limit` (not counted),
        the seconds until the window's oldest call leaves it."""

    async def first_seen(self, name: str, now: float) -> float:
        """When `name` was first seen (`now` unless another worker or instance saw it first)."""

    def announcements(self) -> AsyncGenerator[bytes | None]:
        """Each journal entry as it finishes, from any worker or instance (its JSON); None after
        (re)subscribing, when some may have been missed."""

    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        """Each owner's stored scenario standings, in one round trip."""

    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        """Move a scenario to `to` atomically if it stands at `seen` at `now` (None); else where it stands."""

    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None: ...

    async def all_states(self) -> dict[str, dict[str, Standing]]: ...

    async def reset_states(self, owner: str | None, scenario: str | None) -> int: ...
