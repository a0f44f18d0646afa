"""The control API, a sub-application under `/_emulator/`: health, scenarios, the journal,
sessions, the clock and its own OpenAPI description (`server/control/openapi.py`)."""

from __future__ import annotations

import gc
import os

from aiohttp import web

from zenmux_emulator.core.keys import JOURNAL, JOURNAL_FILE, REGISTRY, SETTINGS, STATE, WATCHER
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.server.control.clock import get_clock, set_clock
from zenmux_emulator.server.control.guard import control_guard
from zenmux_emulator.server.control.journal import clear_journal, journal_verdict, list_journal, list_unmatched
from zenmux_emulator.server.control.match import would_match
from zenmux_emulator.server.control.misbehave import list_misbehave, set_misbehave
from zenmux_emulator.server.control.scenarios import (
    add_scenario,
    list_scenarios,
    reload_scenarios,
    remove_scenario,
    replace_scenario,
)
from zenmux_emulator.server.control.sessions import reset_sessions
from zenmux_emulator.server.control.states import delete_state, list_states, put_state
from zenmux_emulator.server.control.wire import json_response, query
from zenmux_emulator.server.edge import signposts
from zenmux_emulator.settings import Settings


async def health(request: web.Request) -> web.Response:
    query(request, ())
    registry, journal = request.config_dict[REGISTRY], request.config_dict[JOURNAL]
    writer = request.config_dict.get(JOURNAL_FILE)
    state: AdminState = request.config_dict[STATE]
    await state.read_scenarios()  # a worker that served no request since a control-API change takes it now
    entries = await state.journal_len()
    return json_response(
        {
            "status": "ok",
            "rules": len(registry.current.scenarios.rules),
            "files": registry.file_names,
            "api_scenarios": registry.api_names,
            "generation": registry.generation,
            "last_reload_error": None if registry.last_error is None else str(registry.last_error),
            "pid": os.getpid(),  # which worker of --workers answered
            "state": state.kind,
            # what this process holds of the state, by version: equal on every worker and instance once caught up
            "versions": state.versions(),
            "watcher": request.config_dict[WATCHER].as_dict(),
            "journal": {
                "entries": entries,
                "bytes": journal.bytes,
                "max_bytes": journal.max_bytes,
                "file": None if writer is None else str(writer.path),
            },
            # the launcher pauses the collector for start-up; serving must have it back (zenmux_emulator/cli/launch.py)
            "collector": {"enabled": gc.isenabled(), "frozen_objects": gc.get_freeze_count()},
        }
    )


async def openapi(request: web.Request) -> web.Response:
    """The control API's OpenAPI description, built on its first request (not at every start)."""
    from zenmux_emulator.server.control.openapi import openapi as described

    return await described(request)


def create_control_app(settings: Settings) -> web.Application:
    """The sub-app; its handlers read the main app's holders through `request.config_dict`, and
    its guard its own settings (who may call it)."""
    app = web.Application(middlewares=[control_guard])
    app[SETTINGS] = settings
    app.add_routes(
        [
            web.get("/", signposts.index),  # /_emulator/: the same index as /
            web.get("/health", health),
            web.get("/scenarios", list_scenarios),
            web.post("/scenarios", add_scenario),
            web.post("/scenarios/reload", reload_scenarios),
            web.put("/scenarios/{name}", replace_scenario),
            web.delete("/scenarios/{name}", remove_scenario),
            web.get("/journal", list_journal),
            web.delete("/journal", clear_journal),
            web.get("/journal/unmatched", list_unmatched),
            web.get("/journal/verdict", journal_verdict),
            web.post("/match", would_match),
            web.post("/sessions/reset", reset_sessions),
            web.get("/states", list_states),
            web.put("/states/{scenario}", put_state),
            web.delete("/states/{scenario}", delete_state),
            web.get("/misbehave", list_misbehave),
            web.post("/misbehave", set_misbehave),
            web.get("/clock", get_clock),
            web.post("/clock", set_clock),
            web.get("/openapi.json", openapi),
        ]
    )
    return app
