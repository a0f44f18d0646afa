"""The Anthropic face's registration: messages and count_tokens, and the catalogue (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.anthropic.client import anthropic_client
from zenmux_emulator.faces.anthropic.recorded import DECODER
from zenmux_emulator.faces.anthropic.verdict import READERS

PREFIX = "/api/anthropic/v1"
ROUTE = f"{PREFIX}/messages"

SPEC = FaceSpec(
    name="anthropic",
    api_name="messages",
    base_path="/api/anthropic",
    routes=DeferredRoutes(
        f"{__package__}.routes",
        (
            ("POST", ROUTE),
            ("POST", f"{ROUTE}/count_tokens"),
            ("GET", f"{PREFIX}/models"),
            ("GET", PREFIX + "/models/{model_id:.+}"),
        ),
    ),
    client=anthropic_client,
    readers=READERS,
    decoder=DECODER,
    signpost=Signpost("Anthropic Messages"),
)
"""The Anthropic Messages face, as the app registers it (the SDKs add `/v1/messages`)."""
