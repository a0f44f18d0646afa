"""write/pacing.py: the one pacing helper every face's stream uses."""

from __future__ import annotations

import random

from zenmux_emulator.scenario.schema import StreamTiming
from zenmux_emulator.write.pacing import marked_waits, waits


def timing(**fields: object) -> StreamTiming:
    return StreamTiming.model_validate(fields)


def test_the_first_event_waits_the_first_token_then_the_gap_plus_seeded_jitter() -> None:
    paced = timing(first_token_ms=200, chunk_ms=50, jitter_ms=10)
    result = waits(paced, 4, seed=7)
    jitter = random.Random(7)
    assert result == [0.2] + [0.05 + jitter.uniform(0, 10) / 1000 for _ in range(3)]
    assert waits(paced, 4, seed=7) == result
    assert waits(paced, 4, seed=8) != result


def test_nothing_waits_without_timing_events_or_delays() -> None:
    assert waits(None, 3, seed=1) == []
    assert waits(timing(first_token_ms=100), 0, seed=1) == []
    assert waits(timing(first_token_ms=0, chunk_ms=0), 3, seed=1) == []


def test_marked_events_take_the_waits_in_order_and_the_rest_follow_at_once() -> None:
    paced = timing(first_token_ms=100, chunk_ms=20, jitter_ms=5)
    marks = [False, True, False, True, True, False]
    first, second, third = waits(paced, 3, seed=3)
    assert marked_waits(paced, marks, seed=3) == [0.0, first, 0.0, second, third, 0.0]
    assert marked_waits(paced, [False, False], seed=3) == []
    assert marked_waits(None, marks, seed=3) == []
