"""Video jobs, on the emulator's clock: a job is `queued` when made, `running` once the clock has
moved past that moment, and done (`succeeded`, or `failed` when its rule's `video.fails` says so) once `takes`
seconds of the clock have passed. A test advances the clock (`POST /_emulator/clock {"advance": …}`)
instead of waiting.

Jobs are kept on a shelf of the app's state (`State.shelf`), `MAX_JOBS` at most (the oldest go
first: an id pushed out answers 404, as ZenMux's expired ones do): in this process, or under
`--workers` and `--state` in the shared store, so any worker or instance answers a job's polls.
Their videos are made in a thread the first time a finished job's video is asked for (by the
worker asked: a job holds everything its bytes depend on), and kept (`Made`, 48 MiB in all) by
those."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from functools import partial
from typing import Literal

import orjson

from zenmux_emulator.core.state import Shelf, ShelfBounds
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.faces.videos.film import Shape, digest, film
from zenmux_emulator.foundation.clock import Clock

MAX_JOBS = 10_000
MAX_JOB_BYTES = 32 * 1024 * 1024
"""What the kept jobs may hold in all (a job is its prompt and some fifty bytes of facts)."""

Stage = Literal["queued", "running", "done"]


@dataclass(frozen=True, slots=True)
class Job:
    """One video job: what it makes, when it was made and how long it takes, and why it fails."""

    id: str
    model: str
    created: float
    takes: float
    shape: Shape
    material: bytes
    """What its videos' bytes depend on besides the seed (`VideoRequest.seed_material`)."""
    count: int = 1
    failure: str | None = None
    """The reason it fails with once done (its rule's `video.fails`; None: it succeeds)."""
    seed: int = 0
    prompt: str = ""
    openai: bool = False
    """Asked for as the openai SDK asks (`openai_video.py`): polled in OpenAI's `Video` shape."""

    def stage(self, now: float) -> Stage:
        if now >= self.created + self.takes:
            return "done"
        return "running" if now > self.created else "queued"

    def encode(self) -> bytes:
        shape = (self.shape.width, self.shape.height, self.shape.seconds)
        material = base64.b64encode(self.material).decode()
        facts = (self.id, self.model, self.created, self.takes, shape, material, self.count, self.failure)
        return orjson.dumps((*facts, self.seed, self.prompt, self.openai))

    @classmethod
    def decode(cls, blob: bytes) -> Job:
        id, model, created, takes, shape, material, count, failure, seed, prompt, openai = orjson.loads(blob)
        return cls(
            id, model, created, takes, Shape(*shape), base64.b64decode(material), count, failure, seed, prompt, openai
        )

    def bits(self, index: int) -> bytes:
        """The digest that draws its `index`-th video."""
        return digest(self.seed, self.material + b"\x00" + str(index).encode())


VIDEOS: Made[bytes] = Made(len)
"""The videos made, by shape and digest."""


async def video(job: Job, index: int = 0) -> bytes:
    """The job's `index`-th video, made in a thread (an MP4 takes a core for a second or two)."""
    bits = job.bits(index)
    return await asyncio.to_thread(VIDEOS.get, (job.shape, bits), partial(film, job.shape, bits))


JOBS = ShelfBounds(MAX_JOBS, MAX_JOB_BYTES)
"""The video jobs' shelf (`State.shelf("video_jobs", JOBS, Job.decode)`)."""


class JobStore:
    """The jobs by id, on a shelf of the app's state, with the clock that stages them."""

    def __init__(self, jobs: Shelf[Job], clock: Clock) -> None:
        self.jobs = jobs
        self.clock = clock

    def keep(self, job: Job) -> None:
        self.jobs.keep(job.id, job)

    async def get(self, id: str) -> Job | None:
        return await self.jobs.get(id)

    def stage(self, job: Job) -> Stage:
        return job.stage(self.clock.now())
