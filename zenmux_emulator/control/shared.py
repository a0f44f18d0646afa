"""The control API over the shared state (`--state`): the journal, sessions, clock and scenarios
as every worker and instance sees them. Each handler of the in-process state asks `shared_of`
first and hands over to these when there is a store."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from zenmux_emulator.journal.entry import NO_MATCH
from zenmux_emulator.pipeline.keys import CLOCK, REGISTRY, SHARED
from zenmux_emulator.pipeline.shared import sync_scenarios
from zenmux_emulator.state.shared import SharedStore


def shared_of(request: web.Request) -> SharedStore | None:
    return request.config_dict.get(SHARED)


def unmatched(entry: dict[str, Any]) -> bool:
    """`JournalEntry.unmatched`, read off a stored entry."""
    return entry.get("api") is not None and entry.get("rule") is None and entry.get("error_type") in (None, NO_MATCH)


async def journal_entries(
    shared: SharedStore,
    *,
    session: str | None = None,
    rule: str | None = None,
    path: str | None = None,
    only_unmatched: bool = False,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The stored entries in arrival order, filtered as `Journal.entries` filters; `limit` keeps the newest."""
    found = [
        entry
        for entry in await shared.journal()
        if (session is None or entry.get("session") == session)
        and (rule is None or entry.get("rule") == rule)
        and (path is None or entry.get("path") == path)
        and (not only_unmatched or unmatched(entry))
    ]
    return found[max(len(found) - limit, 0) :] if limit is not None else found


async def fresh(request: web.Request, shared: SharedStore) -> None:
    """Before the control API reads or changes the scenarios: take any newer ones from the store."""
    await sync_scenarios(shared, request.config_dict[REGISTRY])


async def publish(request: web.Request, shared: SharedStore) -> None:
    """After a change of the scenarios here: every other worker and instance takes it before its next request."""
    await shared.publish_scenarios(request.config_dict[REGISTRY].api_sources)


async def fresh_clock(request: web.Request, shared: SharedStore) -> None:
    """The clock as the store has it (another worker may have moved it)."""
    request.config_dict[CLOCK].frozen_at = await shared.clock()
