"""The Vertex AI / Gemini face's registration: generateContent and streamGenerateContent, countTokens,
and the catalogue as both model lists, on every path form (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.vertex.client import gemini_client
from zenmux_emulator.faces.vertex.image_models import MODELS
from zenmux_emulator.faces.vertex.paths import BASE, GEMINI_API, GENERATE, MODEL, MODEL_PATHS, VERTEX
from zenmux_emulator.faces.vertex.recorded import DECODER
from zenmux_emulator.faces.vertex.verdict import READERS

NAME = "vertex"
ROUTES = (
    *(
        (method, f"{path}:{action}")
        for path in MODEL_PATHS
        for method, action in (("POST", GENERATE), ("POST", "countTokens"))
    ),
    ("GET", GEMINI_API),
    ("GET", VERTEX),
    ("GET", f"{GEMINI_API}/{{provider}}/{MODEL}"),
    ("GET", f"{VERTEX}/{MODEL}"),
)
"""Every route, as `routes.py` makes them."""

SPEC = FaceSpec(
    name=NAME,
    api_name="generateContent",
    base_path=BASE,
    routes=DeferredRoutes(f"{__package__}.routes", ROUTES),
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
