"""The control API, a sub-application under `/_emulator/`: health and the request journal."""

from __future__ import annotations

import orjson
from aiohttp import web

from emulator.control.guard import control_guard
from emulator.keys import STATE
from emulator.state import EmulatorState


def _json(data: object, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(data), status=status, content_type="application/json")


async def health(request: web.Request) -> web.Response:
    state = request.app[STATE]
    registry = state.registry
    scenarios = registry.current.scenarios
    return _json({
        "status": "ok",
        "rules": len(scenarios.rules),
        "files": list(scenarios.files),
        "generation": registry.generation,
        "last_reload_error": None if registry.last_error is None else str(registry.last_error),
    })


async def list_journal(request: web.Request) -> web.Response:
    q = request.query
    entries = request.app[STATE].journal.entries(session=q.get("session"), rule=q.get("rule"), path=q.get("path"))
    return _json({"entries": [e.as_dict() for e in entries]})


async def clear_journal(request: web.Request) -> web.Response:
    request.app[STATE].journal.clear(request.query.get("session"))
    return _json({"cleared": True})


def create_control_app(state: EmulatorState) -> web.Application:
    app = web.Application(middlewares=[control_guard])
    app[STATE] = state
    app.add_routes([
        web.get("/health", health),
        web.get("/journal", list_journal),
        web.delete("/journal", clear_journal),
    ])
    return app
