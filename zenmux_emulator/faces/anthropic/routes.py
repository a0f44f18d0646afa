"""The Anthropic face's routes: messages through the shared path, count_tokens, and the catalogue."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.side import SideRoute
from zenmux_emulator.faces.anthropic.count import count_tokens
from zenmux_emulator.faces.anthropic.face import AnthropicFace
from zenmux_emulator.faces.anthropic.models import get_model, list_models
from zenmux_emulator.faces.anthropic.spec import PREFIX, ROUTE


def routes(core: Core) -> list[web.RouteDef]:
    face = AnthropicFace(core)
    return [
        web.post(ROUTE, Endpoint(face, core, face.preload).handle),
        web.post(f"{ROUTE}/count_tokens", SideRoute(face.name, core, count_tokens).handle),
        web.get(f"{PREFIX}/models", list_models),
        web.get(PREFIX + "/models/{model_id:.+}", get_model),
    ]
