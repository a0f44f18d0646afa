"""The control API, a sub-application under `/_emulator/`: health, scenarios, the journal,
sessions, the clock and its own OpenAPI description (`server/control/openapi.py`).

Its routes are registered at start-up; each handler's module (and what it needs: the YAML library
for the scenarios' routes, the near-miss report for `/match`) is imported on the route's first
request (`Later`), since a server that only answers API requests never calls them (issue 43)."""

from __future__ import annotations

import gc
import importlib
import os
from collections.abc import Awaitable, Callable

from aiohttp import web

from zenmux_emulator.core.keys import JOURNAL, JOURNAL_FILE, REGISTRY, SETTINGS, STATE, WATCHER
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.server.control.guard import control_guard
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


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Later:
    """A control route's handler: `name` of `server/control/<module>.py`, imported on its first request."""

    __slots__ = ("module", "name", "real")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self.real: Handler | None = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.real is None:
            self.real = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.name)
        return await self.real(request)


LATER: tuple[tuple[str, str, str, str], ...] = (
    ("GET", "/scenarios", "scenarios", "list_scenarios"),
    ("POST", "/scenarios", "scenarios", "add_scenario"),
    ("POST", "/scenarios/reload", "scenarios", "reload_scenarios"),
    ("PUT", "/scenarios/{name}", "scenarios", "replace_scenario"),
    ("DELETE", "/scenarios/{name}", "scenarios", "remove_scenario"),
    ("GET", "/journal", "journal", "list_journal"),
    ("DELETE", "/journal", "journal", "clear_journal"),
    ("GET", "/journal/unmatched", "journal", "list_unmatched"),
    ("GET", "/journal/verdict", "journal", "journal_verdict"),
    ("POST", "/match", "match", "would_match"),
    ("POST", "/sessions/reset", "sessions", "reset_sessions"),
    ("GET", "/states", "states", "list_states"),
    ("PUT", "/states/{scenario}", "states", "put_state"),
    ("DELETE", "/states/{scenario}", "states", "delete_state"),
    ("GET", "/misbehave", "misbehave", "list_misbehave"),
    ("POST", "/misbehave", "misbehave", "set_misbehave"),
    ("GET", "/clock", "clock", "get_clock"),
    ("POST", "/clock", "clock", "set_clock"),
    ("GET", "/openapi.json", "openapi", "openapi"),  # the description, built on its first request
)
"""The routes after `/` and `/health`, in their order: method, path, module and handler."""


def _route(method: str, path: str, handler: Handler) -> web.RouteDef:
    """A route as `web.get` and the rest make it: a GET route answers HEAD too."""
    return web.get(path, handler) if method == "GET" else web.route(method, path, handler)


def create_control_app(settings: Settings) -> web.Application:
    """The sub-app; its handlers read the main app's holders through `request.config_dict`, and
    its guard its own settings (who may call it)."""
    app = web.Application(middlewares=[control_guard])
    app[SETTINGS] = settings
    app.add_routes(
        [
            web.get("/", signposts.index),  # /_emulator/: the same index as /
            web.get("/health", health),
            *(_route(method, path, Later(module, name).handle) for method, path, module, name in LATER),
        ]
    )
    return app
