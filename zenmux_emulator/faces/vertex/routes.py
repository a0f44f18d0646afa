"""The Vertex AI / Gemini face's routes: generateContent and streamGenerateContent through the
shared path, countTokens, and the catalogue as both model lists, on every path form."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.side import SideRoute
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.media.endpoint import PreparingEndpoint
from zenmux_emulator.faces.vertex.client import gemini_client
from zenmux_emulator.faces.vertex.count import count_tokens
from zenmux_emulator.faces.vertex.face import NAME, VertexFace
from zenmux_emulator.faces.vertex.image_output import MODELS
from zenmux_emulator.faces.vertex.models import get_model, list_models
from zenmux_emulator.faces.vertex.paths import BASE, GEMINI_API, GENERATE, MODEL, MODEL_PATHS, VERTEX
from zenmux_emulator.faces.vertex.recorded import DECODER
from zenmux_emulator.faces.vertex.verdict import READERS

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KEY_HEADER = "x-goog-api-key"


def key_from_query(handler: Handler) -> Handler:
    """Google's `?key=` as the key when no header carries one: the request goes on with it as
    `x-goog-api-key`, so the shared path authenticates it like any other."""

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


SPEC = FaceSpec(
    name=NAME,
    api_name="generateContent",
    base_path=BASE,
    routes=routes,
    client=gemini_client,
    readers=READERS,
    decoder=DECODER,
    models=MODELS,
    signpost=Signpost(
        "Vertex AI / Gemini (Google's generateContent)",
        beyond=(
            (
                rf"^{BASE}/.*:(predictLongRunning|fetchPredictOperation)$",
                "ZenMux's Vertex AI Veo route (:predictLongRunning submits a video, :fetchPredictOperation polls it)",
            ),
            (
                rf"^{BASE}/.*:(embedContent|batchEmbedContents)$",
                "Gemini's embeddings route, which ZenMux's Vertex AI API does not document "
                "(ZenMux serves embeddings at /api/v1/embeddings, in OpenAI's shape, and so does the emulator)",
            ),
            (
                f"{BASE}/",
                "a Vertex AI route ZenMux's docs do not list (they list generateContent, streamGenerateContent, "
                "countTokens and the model lists, all served here, and Imagen's :predict and Veo's :predictLongRunning)",
            ),
        ),
    ),
)
"""Google's generateContent, as the app registers it (google-genai adds `/v1/…` or `/v1beta/…`); its
render shows the misbehaviour catalogue's faults in Gemini's own terms (render.py)."""
