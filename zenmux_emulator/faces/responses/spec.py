"""The Responses face's registration: creation, and the stored responses (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.responses.recorded import DECODER
from zenmux_emulator.faces.responses.verdict import READERS

ROUTE = "/api/v1/responses"

SPEC = FaceSpec(
    name="responses",
    api_name="responses",
    base_path="/api/v1",
    routes=DeferredRoutes(
        f"{__package__}.routes",
        (
            ("POST", ROUTE),
            ("GET", ROUTE + "/{response_id}"),
            ("DELETE", ROUTE + "/{response_id}"),
            ("GET", ROUTE + "/{response_id}/input_items"),
        ),
    ),
    client=openai_client,
    readers=READERS,
    decoder=DECODER,
    signpost=Signpost("Responses (OpenAI)", ("/api/v1/responses",)),
)
"""The Responses face, as the app registers it."""
