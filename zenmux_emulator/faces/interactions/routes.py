"""The Interactions face's route and its alias, through the shared path."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.interactions.face import InteractionsFace
from zenmux_emulator.faces.interactions.spec import ALIAS, ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    handle = Endpoint(InteractionsFace(), core).handle
    return [web.post(ROUTE, handle), web.post(ALIAS, handle)]
