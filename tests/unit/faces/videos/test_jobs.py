"""The video jobs' store: a job's stages on the clock, and the bound on how many are kept."""

from __future__ import annotations

from zenmux_emulator.faces.videos.film import Shape
from zenmux_emulator.faces.videos.jobs import Job, JobStore
from zenmux_emulator.foundation.clock import Clock


def job(id: str, created: float = 100.0) -> Job:
    return Job(id=id, model="m/v", created=created, takes=10.0, shape=Shape(64, 64, 1), material=b"")


def test_a_job_is_queued_running_then_done_on_the_clock() -> None:
    clock = Clock(100.0)
    store = JobStore(clock)
    made = job("a")
    store.keep(made)
    stages = []
    for step in (0, 0.5, 9, 0.5):
        clock.advance(step)
        stages.append(store.stage(made))
    assert stages == ["queued", "running", "running", "done"]


def test_the_store_keeps_at_most_its_bound_and_the_oldest_go_first() -> None:
    store = JobStore(Clock(100.0), max_jobs=3)
    for name in "abcde":
        store.keep(job(name))
    assert [store.get(name) is not None for name in "abcde"] == [False, False, True, True, True]
    assert len(store.jobs) == 3
