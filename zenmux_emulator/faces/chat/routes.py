"""The chat face's routes: completions through the shared path, and ZenMux's model catalogue."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.chat.face import CHAT, ROUTE
from zenmux_emulator.faces.chat.models import get_model, list_models
from zenmux_emulator.faces.chat.recorded import DECODER
from zenmux_emulator.faces.chat.verdict import READERS
from zenmux_emulator.faces.common.clients import openai_client


def routes(core: Core) -> list[web.RouteDef]:
    return [
        web.post(ROUTE, Endpoint(CHAT, core).handle),
        web.get("/api/v1/models", list_models),
        web.get("/api/v1/models/{model_id:.+}", get_model),
    ]


SPEC = FaceSpec(
    name="chat",
    api_name="chat.completions",
    base_path="/api/v1",
    routes=routes,
    client=openai_client,
    readers=READERS,
    decoder=DECODER,
    signpost=Signpost("Chat Completions (OpenAI-compatible)", ("/api/v1/chat/", "/api/v1/models")),
)
"""The chat completions face, as the app registers it."""
