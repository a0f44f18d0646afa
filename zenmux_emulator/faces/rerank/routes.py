"""The rerank face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.rerank.face import RerankFace
from zenmux_emulator.faces.rerank.spec import ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, Endpoint(RerankFace(core.settings.seed), core).handle)]
