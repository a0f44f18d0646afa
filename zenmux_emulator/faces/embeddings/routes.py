"""The embeddings face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.embeddings.face import EmbeddingsFace
from zenmux_emulator.faces.embeddings.spec import ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, Endpoint(EmbeddingsFace(core.settings.seed), core).handle)]
