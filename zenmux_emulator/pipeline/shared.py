"""The request path's side of the shared state (`--state`): open the session in the store, keep
the scenarios in step with the control API's, and the key the middleware finishes it by."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from aiohttp import web

from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.ids import request_id
from zenmux_emulator.gateway.admission import admission_ask, admitted
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.match.rule import CompiledRule
from zenmux_emulator.match.select import Selection
from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.state.shared import SharedStore, StaleScenarios, StateLost

log = logging.getLogger("emulator.state")

SHARED_SESSION = web.RequestKey("shared_session", Session)
"""The session `open_shared` read: the middleware writes its changes with the journal entry."""

SYNC_TRIES = 5
CLAIM_TRIES = 64
"""Positions a request may find taken before it gives up: each one was served to another request."""


async def sync_scenarios(shared: SharedStore, registry: ScenarioRegistry) -> None:
    """Take the control API's scenarios (and re-read the files) as the store has them now."""
    version, api = await shared.api_scenarios()
    if version != shared.scenarios_version:
        await registry.sync(api)
        shared.scenarios_version = version
        log.info("scenarios synced to version %d of the shared state", version)


async def open_shared(
    shared: SharedStore,
    registry: ScenarioRegistry,
    clock: Clock,
    seed: int,
    request: web.Request,
    entry: JournalEntry,
    key: str,
    prompt: int,
) -> tuple[Session, dict[str, str]]:
    """Open the request's session in the store: its journal number, its counters, and its
    admission (429 and 402 raised as in process); the rate headers its answer carries."""
    assert entry.session is not None
    for _ in range(SYNC_TRIES):
        gateway = registry.current.scenarios.gateway
        ask = admission_ask(gateway, key, prompt) if gateway.active else None
        try:
            opened = await shared.open(entry.session, ask, time.time())
            break
        except StaleScenarios:
            await sync_scenarios(shared, registry)
        except StateLost:  # Redis restarted empty, or flushed: what this worker has in force, again
            await shared.restore(clock.frozen_at, registry.api_sources)
    else:
        raise RuntimeError("the shared scenarios kept changing while a request was opened")
    clock.frozen_at = opened.frozen_at
    entry.seq, entry.request_id, entry.time = opened.seq, request_id(seed, opened.seq), clock.now()
    request[SHARED_SESSION] = opened.session
    gate = admitted(gateway, ask, opened.admission) if ask is not None and opened.admission is not None else {}
    return opened.session, gate


def positional(rule: CompiledRule) -> bool:
    """Whether which reply answers depends on the position: a sequence, or one reply that ends."""
    return len(rule.replies) > 1 or rule.rule.then in ("error", "fall_through")


async def claimed(
    shared: SharedStore, session: Session, selection: Selection | None, again: Callable[[], Selection | None]
) -> Selection | None:
    """The selection once its position is taken in the store (issue 31): when another request in
    flight took it first, the request is matched `again` at the position stored now."""
    for _ in range(CLAIM_TRIES):
        if selection is None or not positional(selection.rule):
            return selection
        if await shared.claim(session, selection.rule.name, selection.hit) is None:
            return selection
        selection = again()
    raise RequestRejected(
        503,
        "emulator_state_busy",
        f"{CLAIM_TRIES} reply positions were taken by other requests of this session while this one was matched",
    )
