"""The Interactions face's registration: `POST /api/v1/interactions` and its alias
`/api/v1beta1/interactions` (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.interactions.client import interactions_client
from zenmux_emulator.faces.interactions.models import MODELS
from zenmux_emulator.faces.interactions.verdict import READERS

NAME = "interactions"
ROUTE = "/api/v1/interactions"
ALIAS = "/api/v1beta1/interactions"

SPEC = FaceSpec(
    name=NAME,
    api_name="interactions",
    base_path="/api",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE), ("POST", ALIAS))),
    client=interactions_client,
    models=MODELS,
    readers=READERS,
    signpost=Signpost(
        "Interactions (Google's native Interactions API)",
        (ROUTE, ALIAS),
        beyond=(
            (
                rf"^({ROUTE}|{ALIAS})/",
                "a route of stored interactions (get, cancel, delete), which ZenMux's docs do not list",
            ),
        ),
    ),
    misbehaves=False,  # the catalogue's faults are not rendered in the Interactions shape: warned of, not claimed
)
"""Google's Interactions API as ZenMux serves it (google-genai's `client.interactions`)."""
