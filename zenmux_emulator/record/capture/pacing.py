"""A stream's measured pacing as a rule's `stream:` timing: time to the first token, then the
average gap between chunks, rounded to whole milliseconds."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from zenmux_emulator.core.neutral.recorded import Event


def measured(events: Sequence[Event], paced: Callable[[Event], bool]) -> dict[str, float]:
    """`first_token_ms` (from sending the request to the first paced event) and `chunk_ms` (the
    mean gap between paced events after it); empty without paced events."""
    times = [e.at_ms for e in events if paced(e)]
    if not times:
        return {}
    timing = {"first_token_ms": round(times[0])}
    if len(times) > 1:
        timing["chunk_ms"] = round((times[-1] - times[0]) / (len(times) - 1))
    return {k: float(v) if not isinstance(v, int) else v for k, v in timing.items()}
