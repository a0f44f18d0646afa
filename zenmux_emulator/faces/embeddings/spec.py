"""The embeddings face's registration (its handler: `routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.embeddings.models import CATALOGUE
from zenmux_emulator.faces.embeddings.recorded import DECODER
from zenmux_emulator.faces.embeddings.reply import VectorsReply
from zenmux_emulator.scenario.faces import FaceTraits

ROUTE = "/api/v1/embeddings"

SPEC = FaceSpec(
    name="embeddings",
    api_name="embeddings",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE),)),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False, answers_unscripted=True),
    models=CATALOGUE,
    decoder=DECODER,
    signpost=Signpost("Embeddings (OpenAI-compatible)", ("/api/v1/embeddings",)),
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
    reply=VectorsReply,
)
"""The embeddings face, as the app registers it: rules answer it when they name it (`api:
embeddings`), so a rule written for the chat faces never answers an embeddings request."""
