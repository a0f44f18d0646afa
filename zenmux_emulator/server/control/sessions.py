"""`POST /_emulator/sessions/reset`: restart the reply sequences of one session, or of all (with
their counters and the objects the faces stored for them)."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.keys import STATE
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
    reset = await request.config_dict[STATE].reset(name)
    if reset is None:
        raise not_found("unknown_session", f"Session {name!r} is not known: no request has used it")
    return json_response({"session": name, "reset": reset})
