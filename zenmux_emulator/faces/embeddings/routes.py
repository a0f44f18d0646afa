"""The embeddings face's registration."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.embeddings.face import ROUTE, EmbeddingsFace
from zenmux_emulator.faces.embeddings.models import CATALOGUE
from zenmux_emulator.faces.embeddings.recorded import DECODER
from zenmux_emulator.faces.embeddings.reply import VectorsReply
from zenmux_emulator.scenario.faces import FaceTraits


def routes(core: Core) -> list[web.RouteDef]:
    return [web.post(ROUTE, Endpoint(EmbeddingsFace(core.settings.seed), core).handle)]


SPEC = FaceSpec(
    name="embeddings",
    api_name="embeddings",
    base_path="/api/v1",
    routes=routes,
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False, answers_unscripted=True),
    models=CATALOGUE,
    decoder=DECODER,
    signpost=Signpost("Embeddings (OpenAI-compatible)", ("/api/v1/embeddings",)),
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
    reply=VectorsReply,
)
"""The embeddings face, as the app registers it: rules answer it when they name it (`api:
embeddings`), so a rule written for the chat faces never answers an embeddings request."""
