"""How long a paced stream waits before its events, the same on every face.

A rule's `stream:` timing gives the first token's wait, then a gap per chunk (from
`tokens_per_second` and `chunk_tokens`, or `chunk_ms`) plus jitter drawn from a seeded
generator, so one seed always gives the same waits. The waits are drawn as the stream is
written, like its events (write/plan.py `Events`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from zenmux_emulator.scenario.schema import StreamFault, StreamTiming


@dataclass(frozen=True, slots=True)
class Schedule:
    """The waits of a paced stream, drawn as its events are written: the first token's wait, then
    the chunk gap plus jitter from a generator seeded per reply (one seed, the same waits)."""

    first: float
    gap: float
    jitter_ms: float
    seed: int

    def __iter__(self) -> Iterator[float]:
        yield self.first
        if not self.jitter_ms:  # no generator (2.5 KB of state) held by an open stream that needs none
            while True:
                yield self.gap
        jitter = random.Random(self.seed)
        while True:
            yield self.gap + jitter.uniform(0, self.jitter_ms) / 1000


def schedule(timing: StreamTiming | None, seed: int) -> Schedule | None:
    """The waits a rule's `stream:` timing gives its paced events; None when nothing waits."""
    if timing is None:
        return None
    gap = timing.chunk_tokens / timing.tokens_per_second if timing.tokens_per_second else timing.chunk_ms / 1000
    if not (timing.first_token_ms or gap or timing.jitter_ms):
        return None
    return Schedule(timing.first_token_ms / 1000, gap, timing.jitter_ms, seed)


def fault_position(fault: StreamFault, count: Callable[[], int]) -> int:
    """How many events are written before a stream fault strikes; `count` (which makes every event
    to count them) is called only for a fault placed by fraction. A position past the last event
    never strikes."""
    if fault.after_chunks is not None:
        return fault.after_chunks
    total = count()
    return min(round(total * (fault.after_fraction or 0)), total)
