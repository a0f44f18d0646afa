"""How long a paced stream waits before its events, the same on every face.

A rule's `stream:` timing gives the first token's wait, then a gap per chunk (from
`tokens_per_second` and `chunk_tokens`, or `chunk_ms`) plus jitter drawn from a seeded
generator, so one seed always gives the same waits.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from zenmux_emulator.scenario.schema import StreamFault, StreamTiming


def waits(timing: StreamTiming | None, count: int, seed: int) -> list[float]:
    """Seconds before each of the first `count` events: the first token's wait, then the chunk
    gap plus seeded jitter; empty when nothing waits."""
    if timing is None or count == 0:
        return []
    gap = timing.chunk_tokens / timing.tokens_per_second if timing.tokens_per_second else timing.chunk_ms / 1000
    jitter = random.Random(seed)
    result = [timing.first_token_ms / 1000]
    result += [gap + (jitter.uniform(0, timing.jitter_ms) / 1000 if timing.jitter_ms else 0.0) for _ in range(count - 1)]
    return result if any(result) else []


def marked_waits(timing: StreamTiming | None, paced: Sequence[bool], seed: int) -> list[float]:
    """Seconds before each event when only the marked ones are paced: the marked events take
    `waits()` in order, the others follow at once; empty when nothing waits."""
    paced_waits = iter(waits(timing, sum(paced), seed))
    result = [next(paced_waits, 0.0) if is_paced else 0.0 for is_paced in paced]
    return result if any(result) else []


def fault_position(fault: StreamFault, count: int) -> int:
    """How many of `count` events are written before a stream fault strikes."""
    at = fault.after_chunks if fault.after_chunks is not None else round(count * (fault.after_fraction or 0))
    return min(at, count)
