"""The video jobs face's registration: ZenMux's native submit, poll and content routes, and Veo's
`:predictLongRunning` and `:fetchPredictOperation` on Vertex AI's model paths."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.faces.videos.face import NAME, NATIVE, VideosFace
from zenmux_emulator.faces.videos.jobs import JobStore
from zenmux_emulator.faces.videos.models import CATALOGUE
from zenmux_emulator.faces.videos.poll import Polls
from zenmux_emulator.faces.videos.reply import VideoReply
from zenmux_emulator.faces.videos.veo import MODEL_PATHS, VEO_ROUTES
from zenmux_emulator.scenario.faces import FaceTraits


def routes(core: Core) -> list[web.RouteDef]:
    store = JobStore(core.clock)
    polls = Polls(core, store)
    made = [
        web.post(NATIVE, MediaEndpoint(VideosFace(store, veo=False), core).handle),  # the openai SDK's form too
        web.get(NATIVE + "/{id}", polls.native),
        web.get(NATIVE + "/{id}/content", polls.content),
    ]
    submit = Endpoint(VideosFace(store, veo=True), core).handle
    for path in MODEL_PATHS:
        made += [web.post(f"{path}:predictLongRunning", submit), web.post(f"{path}:fetchPredictOperation", polls.veo)]
    return made


SPEC = FaceSpec(
    name=NAME,
    api_name="videos",
    base_path="/api/v1",
    routes=routes,
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Video jobs (ZenMux's native API, and Vertex AI's Veo)", (NATIVE, VEO_ROUTES)),
    reply=VideoReply,
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The video jobs face: rules answer it when they name it (`api: videos`); a rule's `video`
says how long the job takes on the emulator's clock (`after_s`) and what it fails with (`fails`), its
`error:` refuses the submission."""
