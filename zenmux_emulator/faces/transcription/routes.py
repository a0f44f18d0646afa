"""The transcription face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.faces.transcription.face import TRANSCRIPTION
from zenmux_emulator.faces.transcription.spec import ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, MediaEndpoint(TRANSCRIPTION, core).handle)]
