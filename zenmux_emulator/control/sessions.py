"""`POST /_emulator/sessions/reset`: restart the reply sequences of one session, or of all."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.control.shared import shared_of
from zenmux_emulator.control.wire import (
    json_object,
    json_response,
    not_found,
    only_keys,
    query,
)
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.pipeline.keys import SESSIONS


async def reset_sessions(request: web.Request) -> web.Response:
    """Body `{"session": "name"}` resets that session; no body (or a null session) resets every one."""
    query(request, ())
    body = await json_object(request, required=False) or {}
    only_keys(body, {"session"})
    name = body.get("session")
    if name is not None and not isinstance(name, str):
        raise invalid_params(f"Parameter session is not valid: expected a string, got {type(name).__name__}")
    shared = shared_of(request)
    if shared is not None:
        if name is not None and not await shared.known(name):
            raise not_found("unknown_session", f"Session {name!r} is not known: no request has used it")
        return json_response({"session": name, "reset": await shared.reset(name)})
    sessions = request.config_dict[SESSIONS]
    if name is not None and name not in sessions:
        raise not_found("unknown_session", f"Session {name!r} is not known: no request has used it")
    return json_response({"session": name, "reset": sessions.reset(name)})
