"""`/_emulator/clock`: read the emulator's clock; freeze, advance or release it."""

from __future__ import annotations

import math

from aiohttp import web

from zenmux_emulator.core.keys import CLOCK, STATE
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.server.control.wire import json_object, json_response, only_keys, query
from zenmux_emulator.settings import LATEST_CLOCK, parse_clock

LATEST = float(LATEST_CLOCK)
ACTIONS = ("freeze_at", "advance", "unfreeze")


def clock_view(clock: Clock) -> dict[str, object]:
    return {"now": clock.now(), "frozen": clock.frozen}


async def get_clock(request: web.Request) -> web.Response:
    query(request, ())
    await request.config_dict[STATE].read_clock()
    return json_response(clock_view(request.config_dict[CLOCK]))


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _moment(value: object) -> float:
    """`freeze_at`: unix seconds (a number or a numeric string) or an ISO 8601 time."""
    at = _number(value)
    if at is None and isinstance(value, str):
        try:
            parsed = parse_clock(value)
        except ValueError:
            parsed = None
        at = None if parsed is None else float(parsed)
    if at is None or not 0 <= at <= LATEST:
        raise invalid_params(
            f"Parameter freeze_at is not valid: expected unix seconds or an ISO 8601 time "
            f"between 1970 and 9999, got {value!r}"
        )
    return at


async def set_clock(request: web.Request) -> web.Response:
    """Exactly one of `{"freeze_at": …}`, `{"advance": seconds}` or `{"unfreeze": true}`."""
    query(request, ())
    body = await json_object(request, required=True) or {}
    only_keys(body, ACTIONS)
    if len(body) != 1:
        raise invalid_params("Request body must hold exactly one of freeze_at, advance or unfreeze")
    clock = request.config_dict[CLOCK]
    state: AdminState = request.config_dict[STATE]
    await state.read_clock()
    if "freeze_at" in body:
        clock.freeze(_moment(body["freeze_at"]))
    elif "advance" in body:
        seconds = _number(body["advance"])
        if seconds is None or seconds < 0 or clock.now() + seconds > LATEST:
            raise invalid_params(
                f"Parameter advance is not valid: expected seconds ≥ 0 that keep the clock "
                f"before 9999-12-31, got {body['advance']!r}"
            )
        clock.advance(seconds)
    elif body["unfreeze"] is True:
        clock.unfreeze()
    else:
        raise invalid_params(f"Parameter unfreeze is not valid: expected true, got {body['unfreeze']!r}")
    await state.write_clock()
    return json_response(clock_view(clock))
