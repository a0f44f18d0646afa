"""write/pacing.py: the one pacing helper every face's stream uses, and write/plan.py's events."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice

from zenmux_emulator.scenario.schema import StreamTiming
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events


def timing(**fields: object) -> StreamTiming:
    return StreamTiming.model_validate(fields)


def first(count: int, timing_: StreamTiming, seed: int) -> list[float]:
    made = schedule(timing_, seed)
    assert made is not None
    return list(islice(made, count))


def test_the_first_event_waits_the_first_token_then_the_gap_plus_seeded_jitter() -> None:
    paced = timing(first_token_ms=200, chunk_ms=50, jitter_ms=10)
    result = first(4, paced, seed=7)
    jitter = random.Random(7)
    assert result == [0.2] + [0.05 + jitter.uniform(0, 10) / 1000 for _ in range(3)]
    assert first(4, paced, seed=7) == result
    assert first(4, paced, seed=8) != result


def test_nothing_waits_without_timing_or_delays() -> None:
    assert schedule(None, seed=1) is None
    assert schedule(timing(first_token_ms=0, chunk_ms=0), seed=1) is None
    assert schedule(timing(first_token_ms=100), seed=1) is not None


def test_events_are_made_afresh_at_each_reading() -> None:
    made: list[int] = []

    def generate() -> Iterator[bytes]:
        made.append(1)
        yield from (b"a", b"b", b"c", b"d")

    events = Events.paced_but_last(generate, 2)
    assert made == []  # nothing is made before the events are read
    assert list(events.marked()) == [(b"a", True), (b"b", True), (b"c", False), (b"d", False)]
    assert list(events) == [b"a", b"b", b"c", b"d"]
    assert events.count() == 4
    assert len(made) == 3


def test_a_generator_is_not_run_ahead_of_its_reader() -> None:
    reached: list[int] = []

    def generate() -> Iterator[bytes]:
        for i in range(1000):
            reached.append(i)
            yield b"x"

    marked = Events.paced_but_last(generate, 1).marked()
    next(marked)
    assert reached == [0, 1]  # the first event, and one more to know it is not the last
