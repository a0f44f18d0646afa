"""The video jobs' submitting faces: ZenMux's native `POST /api/v1/videos` answers the job's
`{id, status: "queued", model}`, Veo's `:predictLongRunning` its operation's `{name}`. Each render
makes the job (`jobs.py`) from the rule that answered: its `video` (`reply.py`) says how long the job
takes on the emulator's clock and what it fails with.

The submission is billed for the videos the job will make (`video`, `perSecond`: its seconds times
its videos, at its resolution), so the Platform API's ledger, the generation lookup and the balance
see a job when it is made and a spent balance answers the submission 402, never a poll. A job its
rule fails is not billed: the providers charge only for videos made (BytePlus: "only successfully
generated videos are charged"), and here the rule decides a job's end when it is submitted."""

from __future__ import annotations

import hashlib

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.videos.film import Shape
from zenmux_emulator.faces.videos.jobs import Job, JobStore
from zenmux_emulator.faces.videos.openai_video import is_openai, parse_openai, video_object
from zenmux_emulator.faces.videos.reply import VideoJob, VideoReply
from zenmux_emulator.faces.videos.request import VideoRequest, parse_native
from zenmux_emulator.faces.videos.spec import NAME
from zenmux_emulator.faces.videos.veo import parse_veo, resource
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.metered import METERED, meter
from zenmux_emulator.write.plan import ReplyPlan

RESOLUTIONS = (480, 720, 1080)
"""The resolutions video is priced at, by the short side of its frame."""


def resolution_of(shape: Shape) -> str:
    """The resolution a video is billed at: the first whose short side its own does not exceed."""
    short = min(shape.width, shape.height)
    return f"{next((tier for tier in RESOLUTIONS if short <= tier), RESOLUTIONS[-1])}p"


def job_id(generation: str) -> str:
    """32 hex digits, as ZenMux's ids are, one per request (from its generation id)."""
    return hashlib.sha256(generation.encode()).hexdigest()[:32]


class VideosFace:
    """Parse and render of a job's submission, natively or as Veo (`veo`), and the error envelope."""

    name = NAME

    def __init__(self, store: JobStore, veo: bool) -> None:
        self.store = store
        self.veo = veo

    def parse(self, body: object, ctx: FaceContext) -> VideoRequest:
        if self.veo:
            return parse_veo(body, ctx)
        if is_openai(body):
            assert isinstance(body, dict)
            return parse_openai(body, ctx.headers)
        return parse_native(body, ctx.headers)

    def render(self, draft: Draft, exchange: Exchange[VideoRequest]) -> ReplyPlan:
        request, generation, seed, ctx = exchange.ask, exchange.generation, exchange.seed, exchange.ctx
        spec = draft.spec
        course = spec.video if isinstance(spec, VideoReply) and spec.video is not None else VideoJob()
        job = Job(
            id=job_id(generation),
            model=request.sent_model,
            created=self.store.clock.now(),
            takes=course.after_s,
            shape=request.shape,
            material=request.seed_material,
            count=request.count,
            failure=course.fails,
            seed=seed,
            prompt=request.prompt,
            openai=request.openai,
        )
        self.store.keep(job)
        if self.veo:
            body: dict[str, object] = {"name": f"{resource(ctx.params)}/operations/{job.id}"}
        elif job.openai:
            body = video_object(job, "queued", job.created)
        else:
            body = {"id": job.id, "status": "queued", "model": job.model}
        plan = ReplyPlan({**draft.headers, **exchange.headers}, orjson.dumps(body))
        tokens = request.prompt_tokens
        usage: dict[str, object] = {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens}
        if job.failure is None:
            seconds = job.shape.seconds * job.count
            usage[METERED] = [meter("video", "perSecond", seconds, resolution=resolution_of(job.shape))]
        plan.usage = usage
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
