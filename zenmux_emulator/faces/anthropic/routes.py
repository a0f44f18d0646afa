"""The Anthropic face's routes: messages through the shared path, count_tokens, and the catalogue."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.side import SideRoute
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.anthropic.client import anthropic_client
from zenmux_emulator.faces.anthropic.count import count_tokens
from zenmux_emulator.faces.anthropic.face import PREFIX, ROUTE, AnthropicFace
from zenmux_emulator.faces.anthropic.models import get_model, list_models
from zenmux_emulator.faces.anthropic.recorded import DECODER
from zenmux_emulator.faces.anthropic.verdict import READERS


def routes(core: Core) -> list[web.RouteDef]:
    face = AnthropicFace(core)
    return [
        web.post(ROUTE, Endpoint(face, core, face.preload).handle),
        web.post(f"{ROUTE}/count_tokens", SideRoute(face.name, core, count_tokens).handle),
        web.get(f"{PREFIX}/models", list_models),
        web.get(PREFIX + "/models/{model_id:.+}", get_model),
    ]


SPEC = FaceSpec(
    name="anthropic",
    api_name="messages",
    base_path="/api/anthropic",
    routes=routes,
    client=anthropic_client,
    readers=READERS,
    decoder=DECODER,
    signpost=Signpost("Anthropic Messages"),
)
"""The Anthropic Messages face, as the app registers it (the SDKs add `/v1/messages`)."""
