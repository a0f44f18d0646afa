"""The rerank face's registration (its handler: `routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.rerank.models import CATALOGUE
from zenmux_emulator.faces.rerank.recorded import DECODER
from zenmux_emulator.faces.rerank.reply import ScoresReply
from zenmux_emulator.scenario.faces import FaceTraits

ROUTE = "/api/v1/rerank"

SPEC = FaceSpec(
    name="rerank",
    api_name="rerank",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE),)),
    traits=FaceTraits(zenmux=False, unnamed_rules=False, answers_unscripted=True),
    models=CATALOGUE,
    decoder=DECODER,
    signpost=Signpost("Rerank", ("/api/v1/rerank",)),
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
    reply=ScoresReply,
)
"""The rerank face, as the app registers it: rules answer it when they name it (`api: rerank`)."""
