"""write/timeline.py: a stream's timeline, kept to the microsecond in 4 bytes an event, and
handed to the journal once the stream is done (write/sse.py's StreamOutcome)."""

from __future__ import annotations

import sys

import pytest

from zenmux_emulator.write.sse import StreamOutcome
from zenmux_emulator.write.timeline import Timeline


def test_times_come_back_in_order_to_the_microsecond() -> None:
    timeline = Timeline()
    times = [27_417.718059138 + i * 0.020_000_4 for i in range(250)]
    for at in times:
        timeline.add(at)
    timeline.add(times[-1] + 0.001, 2)  # the usage chunk and [DONE], written at once
    assert len(timeline) == 252
    assert list(timeline) == pytest.approx([*times, times[-1] + 0.001, times[-1] + 0.001], abs=1e-6)
    assert sys.getsizeof(timeline) <= 4 * 252 + 256


def test_a_stream_past_35_minutes_and_one_hurried_before_its_first_event_are_kept_whole() -> None:
    timeline = Timeline()
    for at in (100.0, 100.5, 100.0 + 3 * 3600, 99.0):
        timeline.add(at)
    assert list(timeline) == pytest.approx([100.0, 100.5, 100.0 + 3 * 3600, 99.0], abs=1e-6)


def test_the_outcome_hands_its_timeline_over_and_keeps_none() -> None:
    """The generation record keeps the outcome (its waits) as long as the journal keeps the entry."""
    outcome = StreamOutcome()
    for i in range(100):
        outcome.sent_at.add(float(i))
    timeline = outcome.timeline()
    assert len(timeline) == 100 and len(outcome.sent_at) == 0
    assert sys.getsizeof(outcome.sent_at) < 64
