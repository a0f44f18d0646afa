"""`/_emulator/misbehave`: the misbehaviour catalogue (GET) and a session's standing fault (POST)."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.keys import SETTINGS, STATE
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.misbehaviours import HEADER, Ask, catalogue_json, check
from zenmux_emulator.server.control.wire import json_object, json_response, only_keys, query
from zenmux_emulator.state.misbehaving import ask_dict

PRECEDENCE = ("header", "session", "rule", "server")
"""Which ask wins when several do, first first (docs/guide/misbehaviour.md)."""


async def _state(request: web.Request) -> dict[str, object]:
    asks = await request.config_dict[STATE].misbehaving()
    return {
        "faults": catalogue_json(),
        "header": HEADER,
        "precedence": list(PRECEDENCE),
        "server": request.config_dict[SETTINGS].misbehave,
        "sessions": {name: ask_dict(ask) for name, ask in asks.items()},
    }


async def list_misbehave(request: web.Request) -> web.Response:
    """The catalogue (each fault, its variants, what is wrong), the server's and the sessions' asks."""
    query(request, ())
    return json_response(await _state(request))


async def set_misbehave(request: web.Request) -> web.Response:
    """Body `{"session", "fault", "variant"?, "rate"?}`: every request of the session gets the fault
    (a seeded share `rate` of them); `"fault": null` stops it."""
    query(request, ())
    body = await json_object(request, required=True) or {}
    only_keys(body, {"session", "fault", "variant", "rate"})
    session, fault, variant, rate = body.get("session"), body.get("fault"), body.get("variant"), body.get("rate", 1)
    if not isinstance(session, str) or not session:
        raise invalid_params("Parameter session is required: the session's name (X-Emulator-Session)")
    if fault is not None and not isinstance(fault, str):
        raise invalid_params(f"Parameter fault is not valid: expected a string or null, got {type(fault).__name__}")
    if variant is not None and not isinstance(variant, str):
        raise invalid_params(f"Parameter variant is not valid: expected a string, got {type(variant).__name__}")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise invalid_params(f"Parameter rate is not valid: expected a number between 0 and 1, got {rate!r}")
    ask = None
    if fault is not None:
        try:
            check(fault, None)
        except ValueError as exc:
            raise invalid_params(f"Parameter fault is not valid: {exc}") from None
        try:
            check(fault, variant)
        except ValueError as exc:
            raise invalid_params(f"Parameter variant is not valid: {exc}") from None
        ask = Ask(fault, variant, float(rate))
    await request.config_dict[STATE].misbehave(session, ask)
    return json_response(await _state(request))
