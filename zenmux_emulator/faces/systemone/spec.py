"""The System One face's registration (its handler: `routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.systemone.models import CATALOGUE
from zenmux_emulator.faces.systemone.reply import AnswersReply
from zenmux_emulator.scenario.faces import FaceTraits

ROUTE = "/api/v1/systemone"

SPEC = FaceSpec(
    name="systemone",
    api_name="systemone",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE),)),
    traits=FaceTraits(zenmux=False, unnamed_rules=False, answers_unscripted=True),
    models=CATALOGUE,
    signpost=Signpost("Structured Evaluation (System One)", (ROUTE,)),
    misbehaves=False,  # answers, not prose or tool calls: a fault asked of it is warned of, not claimed
    reply=AnswersReply,
)
"""The System One face, as the app registers it: rules answer it when they name it (`api: systemone`);
its exchanges are recorded verbatim (`raw:`), having no decoder."""
