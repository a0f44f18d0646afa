"""The video jobs face's registration: ZenMux's native submit, poll and content routes, and Veo's
`:predictLongRunning` and `:fetchPredictOperation` on Vertex AI's model paths."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.faces.videos.face import VideosFace
from zenmux_emulator.faces.videos.jobs import JOBS, Job, JobStore
from zenmux_emulator.faces.videos.poll import Polls
from zenmux_emulator.faces.videos.spec import MODEL_PATHS, NATIVE


def routes(core: Core) -> list[web.RouteDef]:
    store = JobStore(core.state.shelf("video_jobs", JOBS, Job.decode), core.clock)
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
