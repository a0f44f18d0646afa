"""The System One face's handler, imported on its first request."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.systemone.face import SystemOneFace
from zenmux_emulator.faces.systemone.spec import ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, Endpoint(SystemOneFace(), core).handle)]
