"""The transcription face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.faces.transcription.face import ROUTE, TRANSCRIPTION
from zenmux_emulator.faces.transcription.models import CATALOGUE
from zenmux_emulator.faces.transcription.reply import TranscriptReply
from zenmux_emulator.scenario.faces import FaceTraits


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, MediaEndpoint(TRANSCRIPTION, core).handle)]


SPEC = FaceSpec(
    name="transcription",
    api_name="audio.transcriptions",
    base_path="/api/v1",
    routes=routes,
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
