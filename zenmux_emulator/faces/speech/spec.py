"""The speech face's registration (its handler: `routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.speech.models import CATALOGUE
from zenmux_emulator.faces.speech.reply import SpeechReply
from zenmux_emulator.scenario.faces import FaceTraits

ROUTE = "/api/v1/audio/speech"

SPEC = FaceSpec(
    name="speech",
    api_name="audio.speech",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE),)),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Speech (OpenAI-compatible)", ("/api/v1/audio/speech",)),
    reply=SpeechReply,
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The speech face: rules answer it when they name it (`api: speech`); a rule's `content` is what
the audio reads, its `speech` the voice and format over the request's or the audio file to answer
with (`reply.py`), its `error:` the answer."""
