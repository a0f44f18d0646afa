"""Would this request match? A body run through a face's parse and the rule selection without
being answered: the rule that would answer it, or the nearest rules and what each missed, worked
out as the request path works them out (so the answer is the journal's near misses)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from yarl import URL

from zenmux_emulator.core.deferred import real_handler
from zenmux_emulator.core.endpoint import Endpoint, states_of
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.match.near_miss import near_misses
from zenmux_emulator.core.match.select import select
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.state.sessions import Session


@dataclass(frozen=True, slots=True)
class Probe:
    """A request as pasted: its face's endpoint, body, headers, URL parameters and URL (its path
    and query), and the session whose sequence positions count."""

    endpoint: Endpoint[Any]
    body: object
    headers: Mapping[str, str]
    params: Mapping[str, str]
    url: URL
    session: str


def face_routes(app: web.Application) -> Iterator[tuple[Endpoint[Any], str, dict[str, Any]]]:
    """Each face's POST route on the app: its endpoint, its path as written and its resource's info."""
    for route in app.router.routes():
        endpoint = getattr(real_handler(route.handler), "__self__", None)
        if route.method == "POST" and isinstance(endpoint, Endpoint) and route.resource is not None:
            yield endpoint, route.resource.canonical, dict(route.resource.get_info())


def endpoint_at(app: web.Application, path: str) -> tuple[Endpoint[Any], dict[str, str]] | None:
    """The face endpoint that serves POST `path`, with the path's URL parameters; None: no face does."""
    for endpoint, canonical, info in face_routes(app):
        pattern = info.get("pattern")
        if pattern is None and canonical == path:
            return endpoint, {}
        found = pattern.fullmatch(path) if pattern is not None else None
        if found is not None:
            return endpoint, found.groupdict()
    return None


async def session_of(endpoint: Endpoint[Any], name: str) -> Session:
    """The session as it stands (a copy from a shared store; never created nor changed)."""
    return await endpoint.core.state.session(name) or Session(name)


async def explain(probe: Probe) -> dict[str, Any]:
    """The verdict on a probe: `accepted` (false: the face rejects the body, with its error),
    the rule and reply index that would answer, or the three nearest rules field by field."""
    endpoint = probe.endpoint
    face, core = endpoint.face, endpoint.core
    ctx = FaceContext(probe.session, probe.headers, probe.params, probe.url, probe=True)
    verdict: dict[str, Any] = {
        "face": face.name,
        "session": probe.session,
        "accepted": True,
        "rejected": None,
        "rule": None,
        "reply_index": None,
        "where": None,
        "near_misses": [],
    }
    try:
        if endpoint.preload is not None:
            await endpoint.preload(probe.body, ctx)
        ask = face.parse(probe.body, ctx)
    except RequestRejected as exc:
        verdict.update(accepted=False, rejected={"status": exc.status, "type": exc.type, "message": exc.message})
        return verdict
    loaded = core.registry.current
    scenarios = loaded.scenarios
    states = await states_of(core, scenarios, probe.session) if scenarios.scenario_names else {}
    selection = select(loaded.index, ask, await session_of(endpoint, probe.session), states)
    if selection is None:
        verdict["near_misses"] = [m.as_dict() for m in near_misses(loaded.scenarios.rules, ask)]
    else:
        verdict.update(rule=selection.rule.name, reply_index=selection.hit, where=selection.rule.where)
    return verdict
