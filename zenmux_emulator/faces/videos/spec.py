"""The video jobs face's registration: ZenMux's native submit, poll and content routes, and Veo's
`:predictLongRunning` and `:fetchPredictOperation` on Vertex AI's model paths (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.videos.models import CATALOGUE
from zenmux_emulator.faces.videos.reply import VideoReply
from zenmux_emulator.scenario.faces import FaceTraits

NAME = "videos"
NATIVE = "/api/v1/videos"
BASE = "/api/vertex-ai"
VERSION = "{veo_version:v1|v1beta1}"
VEO_ROUTES = f"{BASE}/{{veo_version}}/"
"""What the index counts as this face's under Vertex AI's base: the routes named with its version's parameter."""
MODEL = "{name:[^/:]+}"
MODEL_PATHS = (
    f"{BASE}/{VERSION}/publishers/{{provider}}/models/{MODEL}",
    f"{BASE}/{VERSION}/projects/{{project}}/locations/{{location}}/publishers/{{provider}}/models/{MODEL}",
)
"""Vertex AI's forms of a model's URL (the Gemini API's `v1beta/models/…` has no Veo at ZenMux)."""
ROUTES = (
    ("POST", NATIVE),
    ("GET", NATIVE + "/{id}"),
    ("GET", NATIVE + "/{id}/content"),
    *(
        ("POST", f"{path}:{action}")
        for path in MODEL_PATHS
        for action in ("predictLongRunning", "fetchPredictOperation")
    ),
)
"""Every route, as `routes.py` makes them."""

SPEC = FaceSpec(
    name=NAME,
    api_name="videos",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", ROUTES),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Video jobs (ZenMux's native API, and Vertex AI's Veo)", (NATIVE, VEO_ROUTES)),
    reply=VideoReply,
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The video jobs face: rules answer it when they name it (`api: videos`); a rule's `video`
says how long the job takes on the emulator's clock (`after_s`) and what it fails with (`fails`), its
`error:` refuses the submission."""
