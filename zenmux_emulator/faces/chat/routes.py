"""The chat face's routes: completions through the shared path, and ZenMux's model catalogue."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.chat.face import CHAT, ROUTE
from zenmux_emulator.faces.chat.models import get_model, list_models


def routes(core: Core) -> list[web.RouteDef]:
    return [
        web.post(ROUTE, Endpoint(CHAT, core).handle),
        web.get("/api/v1/models", list_models),
        web.get("/api/v1/models/{model_id:.+}", get_model),
    ]
