"""`/_emulator/states`: where each scenario (`scenario`, `when_state`, `set_state`) stands, per
session; jump a session into a flow (`PUT`), or put a scenario back to `started` (`DELETE`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from zenmux_emulator.core.keys import CLOCK, REGISTRY, STATE
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.core.rules.machines import machines
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.server.control.wire import json_object, json_response, not_found, only_keys, query
from zenmux_emulator.state.scenario_states import SERVER_WIDE, Standing

MAX_NAME = 128


def _text(value: object, name: str, *, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_NAME:
        shown = type(value).__name__ if not isinstance(value, str) else repr(value)
        raise invalid_params(
            f"Parameter {name} is not valid: expected a name of 1 to {MAX_NAME} characters, got {shown}"
        )
    return value


async def _scenarios(request: web.Request) -> ScenarioSet:
    await request.config_dict[STATE].read_scenarios()
    return request.config_dict[REGISTRY].current.scenarios


def _known(scenarios: ScenarioSet, scenario: str) -> None:
    if scenario not in scenarios.scenario_names:
        names = ", ".join(scenarios.scenario_names) or "none"
        raise not_found("unknown_scenario", f"Scenario {scenario!r} is named by no rule (scenarios: {names})")


def _owner(scenarios: ScenarioSet, scenario: str, session: str | None) -> str | None:
    """Whose state to change: the server's for a server-wide scenario, else the session given."""
    if scenario in scenarios.server_wide:
        return SERVER_WIDE
    return session


def _shown(standing: Standing, now: float) -> dict[str, Any]:
    resolved = standing.at(now)
    shown = resolved.as_dict()
    if resolved.then is not None and resolved.due is not None:
        shown["pending"] = {"to": resolved.then, "due": resolved.due, "due_in_s": round(resolved.due - now, 6)}
    return shown


async def list_states(request: web.Request) -> web.Response:
    """Every scenario the rules name, each session's state in it (a session not listed stands at
    `started`), with a pending timed move and when it falls due, and the machine its rules draw;
    `?session=` for one session."""
    params = query(request, ("session",))
    session = _text(params.get("session"), "session", required=False)
    scenarios = await _scenarios(request)
    state: AdminState = request.config_dict[STATE]
    await state.read_clock()
    now = request.config_dict[CLOCK].now()
    stored = await state.all_states()
    drawn = machines(scenarios.rules)
    listed: dict[str, Any] = {}
    for scenario in scenarios.scenario_names:
        wide = scenario in scenarios.server_wide
        sessions = {
            owner: _shown(kept[scenario], now)
            for owner, kept in sorted(stored.items())
            if scenario in kept and (owner == SERVER_WIDE) == wide and (session is None or wide or owner == session)
        }
        listed[scenario] = {"server_wide": wide, "sessions": sessions, "machine": drawn[scenario].as_dict()}
    return json_response({"now": now, "scenarios": listed})


async def put_state(request: web.Request) -> web.Response:
    """`{"state": …, "session": …}`: the session (any, for a server-wide scenario) now stands there."""
    query(request, ())
    scenario = request.match_info["scenario"]
    body = await json_object(request, required=True) or {}
    only_keys(body, ("state", "session"))
    to = _text(body.get("state"), "state", required=True)
    assert to is not None
    scenarios = await _scenarios(request)
    _known(scenarios, scenario)
    owner = _owner(scenarios, scenario, _text(body.get("session"), "session", required=False))
    if owner is None:
        raise invalid_params(f"Parameter session is required: scenario {scenario!r} is kept per session")
    await request.config_dict[STATE].put_state(owner, scenario, Standing(to))
    return json_response({"scenario": scenario, "session": owner, "state": to})


async def delete_state(request: web.Request) -> web.Response:
    """Put one scenario back to `started`: for every session, or `?session=` for one."""
    params = query(request, ("session",))
    scenario = request.match_info["scenario"]
    session = _text(params.get("session"), "session", required=False)
    scenarios = await _scenarios(request)
    _known(scenarios, scenario)
    owner = _owner(scenarios, scenario, session)
    reset = await request.config_dict[STATE].reset_states(owner, scenario)
    return json_response({"scenario": scenario, "session": session, "reset": reset})
