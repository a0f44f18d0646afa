"""The Vertex AI / Gemini face's routes: generateContent and streamGenerateContent through the
shared path, countTokens, and the catalogue as both model lists, on every path form."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.side import SideRoute
from zenmux_emulator.faces.media.endpoint import PreparingEndpoint
from zenmux_emulator.faces.vertex.count import count_tokens
from zenmux_emulator.faces.vertex.face import VertexFace
from zenmux_emulator.faces.vertex.models import get_model, list_models
from zenmux_emulator.faces.vertex.paths import GEMINI_API, GENERATE, MODEL, MODEL_PATHS, VERTEX
from zenmux_emulator.faces.vertex.spec import NAME

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KEY_HEADER = "x-goog-api-key"


def key_from_query(handler: Handler) -> Handler:
    """Google's `?key=` as the key when no header carries one: the request goes on with it as
    `x-goog-api-key`, so the shared path authenticates it like any other."""

    @functools.wraps(handler)
    async def handle(request: web.Request) -> web.StreamResponse:
        key = request.query.get("key")
        if key and KEY_HEADER not in request.headers and "Authorization" not in request.headers:
            request = request.clone(headers={**request.headers, KEY_HEADER: key})
        return await handler(request)

    return handle


def routes(core: Core) -> list[web.RouteDef]:
    generate = key_from_query(PreparingEndpoint(VertexFace(core.kit.signer), core).handle)
    count = key_from_query(SideRoute(NAME, core, count_tokens).handle)
    made: list[web.RouteDef] = []
    for path in MODEL_PATHS:
        made += [web.post(f"{path}:{GENERATE}", generate), web.post(f"{path}:countTokens", count)]
    made += [
        web.get(GEMINI_API, list_models),
        web.get(VERTEX, list_models),
        web.get(f"{GEMINI_API}/{{provider}}/{MODEL}", get_model),
        web.get(f"{VERTEX}/{MODEL}", get_model),
    ]
    return made
