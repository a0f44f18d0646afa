"""`POST /_emulator/sessions/reset`: restart the reply sequences of one session, or of all (with
their counters, their scenario states and the objects the faces stored for them; all sessions: the
server-wide scenarios' states too)."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.keys import STATE
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.server.control.wire import (
    json_object,
    json_response,
    not_found,
    only_keys,
    query,
)


async def reset_sessions(request: web.Request) -> web.Response:
    """Body `{"session": "name"}` resets that session; no body (or a null session) resets every one."""
    query(request, ())
    body = await json_object(request, required=False) or {}
    only_keys(body, {"session"})
    name = body.get("session")
    if name is not None and not isinstance(name, str):
        raise invalid_params(f"Parameter session is not valid: expected a string, got {type(name).__name__}")
    state: AdminState = request.config_dict[STATE]
    moved = await state.reset_states(name, None)  # a session only jumped into a flow is known by its states
    reset = await state.reset(name)
    if reset is None and moved:
        reset = 1
    if reset is None:
        raise not_found("unknown_session", f"Session {name!r} is not known: no request has used it")
    return json_response({"session": name, "reset": reset})
