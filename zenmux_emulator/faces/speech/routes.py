"""The speech face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.faces.speech.face import SPEECH
from zenmux_emulator.faces.speech.spec import ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, MediaEndpoint(SPEECH, core).handle)]
