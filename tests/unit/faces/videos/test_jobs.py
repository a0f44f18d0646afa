"""The video jobs' store: a job's stages on the clock, the bound on how many are kept, and a job
written out and read back whole (the shared store keeps it as bytes)."""

from __future__ import annotations

import asyncio

from zenmux_emulator.core.state import ShelfBounds
from zenmux_emulator.faces.videos.film import Shape
from zenmux_emulator.faces.videos.jobs import JOBS, Job, JobStore
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.server.state_local import LocalShelf


def job(id: str, created: float = 100.0) -> Job:
    return Job(id=id, model="m/v", created=created, takes=10.0, shape=Shape(64, 64, 1), material=b"")


def test_a_job_is_queued_running_then_done_on_the_clock() -> None:
    clock = Clock(100.0)
    store = JobStore(LocalShelf(JOBS), clock)
    made = job("a")
    store.keep(made)
    stages = []
    for step in (0, 0.5, 9, 0.5):
        clock.advance(step)
        stages.append(store.stage(made))
    assert stages == ["queued", "running", "running", "done"]


def test_the_store_keeps_at_most_its_bound_and_the_oldest_go_first() -> None:
    store = JobStore(LocalShelf(ShelfBounds(3, 1 << 20)), Clock(100.0))
    for name in "abcde":
        store.keep(job(name))

    async def found() -> list[Job | None]:
        return [await store.get(name) for name in "abcde"]

    kept = asyncio.run(found())
    assert [found is not None for found in kept] == [False, False, True, True, True]


def test_a_job_reads_back_as_it_was_written() -> None:
    made = Job(
        id="vid_1",
        model="google/veo-3.1-generate-preview",
        created=1767225600.25,
        takes=30.0,
        shape=Shape(1280, 720, 8),
        material=b"\x00\xffprompt\x00digest",
        count=2,
        failure="blocked by a rule",
        seed=42,
        prompt="a fox in the snow ❄",
        openai=True,
    )
    assert Job.decode(made.encode()) == made
    assert Job.decode(job("b").encode()) == job("b")
