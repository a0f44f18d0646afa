"""The Platform API's registration: a Management key's account routes (`routes.py`), no rules."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.scenario.faces import FaceTraits

BASE = "/api/v1/management"
ROUTES = ("payg/balance", "flow_rate", "subscription/detail", "usage", "cost")
"""Its routes under `BASE`, all GET."""

SPEC = FaceSpec(
    name="platform",
    api_name="platform",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", tuple(("GET", f"{BASE}/{route}") for route in ROUTES)),
    traits=FaceTraits(zenmux=False, unnamed_rules=False, scripted=False),
    signpost=Signpost(
        "Platform API (Management key)",
        tuple(f"{BASE}/{route}" for route in ("payg/", "flow_rate", "subscription/", "usage", "cost")),
    ),
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The Platform API, as the app registers it: routes and the journal, no rules (it answers from
the emulator's state; `settings.account` sets what it reports)."""
