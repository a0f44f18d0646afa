"""The chat face's registration: completions and ZenMux's model catalogue (`routes.py`).

The one face whose routes are imported at start-up rather than on first use (`core/deferred.py`):
it is the face a plain request and most clients call, so its first request does not wait for its
import, and its handlers are called without a stand-in in between.
"""

from __future__ import annotations

from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.chat.recorded import DECODER
from zenmux_emulator.faces.chat.routes import routes
from zenmux_emulator.faces.chat.verdict import READERS
from zenmux_emulator.faces.common.clients import openai_client

SPEC = FaceSpec(
    name="chat",
    api_name="chat.completions",
    base_path="/api/v1",
    routes=routes,
    client=openai_client,
    readers=READERS,
    decoder=DECODER,
    signpost=Signpost("Chat Completions (OpenAI-compatible)", ("/api/v1/chat/", "/api/v1/models")),
)
"""The chat completions face, as the app registers it."""
