"""The transcription face's registration (its handler: `routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.transcription.models import CATALOGUE
from zenmux_emulator.faces.transcription.reply import TranscriptReply
from zenmux_emulator.scenario.faces import FaceTraits

ROUTE = "/api/v1/audio/transcriptions"

SPEC = FaceSpec(
    name="transcription",
    api_name="audio.transcriptions",
    base_path="/api/v1",
    routes=DeferredRoutes(f"{__package__}.routes", (("POST", ROUTE),)),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Transcription (OpenAI-compatible)", ("/api/v1/audio/transcriptions",)),
    reply=TranscriptReply,
    misbehaves=False,  # a fault asked of it is warned of, not claimed
)
"""The transcription face: rules answer it when they name it (`api: transcription`); a rule's
`content` is the transcript, its `transcript` its language, duration, segments and words (`reply.py`),
its `error:` the answer."""
