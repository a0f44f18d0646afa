"""Video jobs, on the emulator's clock: a job is `queued` when made, `running` once the clock has
moved past that moment, and done (`succeeded`, or `failed` when its rule's `video.fails` says so) once `takes`
seconds of the clock have passed. A test advances the clock (`POST /_emulator/clock {"advance": …}`)
instead of waiting.

Jobs are held in this process's memory, `MAX_JOBS` at most (the oldest go first: an id pushed out
answers 404, as ZenMux's expired ones do); under `--workers` a job is answered only by the worker
that made it. Their videos are made in a thread the first time a finished job's video is asked
for, and kept (`Made`, 48 MiB in all) by everything their bytes depend on."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from typing import Literal

from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.faces.videos.film import Shape, digest, film
from zenmux_emulator.foundation.clock import Clock

MAX_JOBS = 10_000

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

    def bits(self, index: int) -> bytes:
        """The digest that draws its `index`-th video."""
        return digest(self.seed, self.material + b"\x00" + str(index).encode())


VIDEOS: Made[bytes] = Made(len)
"""The videos made, by shape and digest."""


async def video(job: Job, index: int = 0) -> bytes:
    """The job's `index`-th video, made in a thread (an MP4 takes a core for a second or two)."""
    bits = job.bits(index)
    return await asyncio.to_thread(VIDEOS.get, (job.shape, bits), partial(film, job.shape, bits))


class JobStore:
    """The jobs by id, `max_jobs` at most (the oldest go first)."""

    def __init__(self, clock: Clock, max_jobs: int = MAX_JOBS) -> None:
        self.clock = clock
        self.max_jobs = max_jobs
        self.jobs: OrderedDict[str, Job] = OrderedDict()

    def keep(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        self.jobs[job.id] = job
        while len(self.jobs) > self.max_jobs:
            self.jobs.popitem(last=False)

    def get(self, id: str) -> Job | None:
        return self.jobs.get(id)

    def stage(self, job: Job) -> Stage:
        return job.stage(self.clock.now())
