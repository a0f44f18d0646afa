"""The Imagen face's registration: `:predict` on every form of a Vertex AI model's URL (ZenMux
documents `v1/publishers/{provider}/models/{model}:predict`; google-genai with a project adds
`projects/…/locations/…`), and the Gemini API's `v1beta/models/{model}:predict` (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.imagen.models import CATALOGUE
from zenmux_emulator.scenario.faces import FaceTraits

NAME = "imagen"
BASE = "/api/vertex-ai"
MODEL = "{name:[^/:]+}"
VERSION = "{imagen_version:v1|v1beta1}"
PATHS = (
    f"{BASE}/{VERSION}/publishers/{{provider}}/models/{MODEL}",
    f"{BASE}/{VERSION}/projects/{{project}}/locations/{{location}}/publishers/{{provider}}/models/{MODEL}",
    f"{BASE}/{{imagen_api:v1beta}}/models/{{provider}}/{MODEL}",
    f"{BASE}/{{imagen_api:v1beta}}/models/{MODEL}",
)
"""Every form of a model's URL the route takes, `:predict` after it."""
OWN = (f"{BASE}/{{imagen_version}}/", f"{BASE}/{{imagen_api}}/")
"""The index's prefixes of these routes as aiohttp writes them (a variable by its name alone, which
the Vertex face's routes do not use), so its routes are listed under this face."""

SPEC = FaceSpec(
    name=NAME,
    api_name="predict",
    base_path=BASE,
    routes=DeferredRoutes(f"{__package__}.routes", tuple(("POST", f"{path}:predict") for path in PATHS)),
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    shares_models_of=("images",),  # ZenMux's :predict answers the GPT image models too
    signpost=Signpost("Imagen (Vertex AI's :predict)", OWN),
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""Imagen: rules answer it when they name it (`api: imagen`); a rule's `content` is the enhanced
prompt (`enhancePrompt`), its `refusal` filters the images, its `error:` is the answer."""
