"""The images face's registration: generations, edits, and the images its URLs link to (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.images.models import CATALOGUE
from zenmux_emulator.faces.images.reply import ImageReply
from zenmux_emulator.scenario.faces import FaceTraits

GENERATIONS = "/api/v1/images/generations"
EDITS = "/api/v1/images/edits"
CONTENT = "/api/v1/images/content"

SPEC = FaceSpec(
    name="images",
    api_name="images",
    base_path="/api/v1",
    routes=DeferredRoutes(
        f"{__package__}.routes", (("POST", GENERATIONS), ("POST", EDITS), ("GET", CONTENT + "/{name}"))
    ),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Images (OpenAI-compatible)", ("/api/v1/images",)),
    reply=ImageReply,
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The images face: rules answer it when they name it (`api: images`); a rule's `content` is the
images' `revised_prompt`, its `image` the file the images are, a refusal or a stream's partial-image
count (`reply.py`), its `error:` the answer."""
