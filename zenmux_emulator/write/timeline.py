"""A stream's timeline: when each of its events was written, kept compactly.

A paced stream writes hundreds of events, an open one adds to its timeline until its last, and the
journal keeps the timeline of every stream it keeps. A list of floats held 32 bytes an event (the
list's slot and a float object); this keeps the first time and each event's microseconds after it,
4 bytes an event (8 once a stream runs past 35 minutes), which the journal shows in milliseconds
to the microsecond anyway."""

from __future__ import annotations

from array import array
from collections.abc import Iterator

MICROSECONDS = 1_000_000
_NONE_YET = array("i")
"""The offsets of every timeline with no event yet, never added to (`add` makes a timeline its own):
an outcome's timeline, once handed to the journal, is an empty one, and the generation record keeps it."""


class Timeline:
    """When each event was written, in `time.perf_counter()` seconds (with the scripted waits a time
    scale skipped), in order: `add` one, iterate them all."""

    __slots__ = ("_first", "_offsets")

    def __init__(self) -> None:
        self._first = 0.0
        self._offsets = _NONE_YET
        """Each event's microseconds after the first (signed: a stream hurried at shutdown under a
        time scale above 1 may put one before it)."""

    def add(self, at: float, count: int = 1) -> None:
        """`count` events written at `at`."""
        if not self._offsets:
            self._first, self._offsets = at, array("i")
        offset = round((at - self._first) * MICROSECONDS)
        try:
            self._put(offset, count)
        except OverflowError:  # 35 minutes from the first: 8 bytes an event from now on
            self._offsets = array("q", self._offsets)
            self._put(offset, count)

    def _put(self, offset: int, count: int) -> None:
        if count == 1:  # a paced event: one at a time
            self._offsets.append(offset)
        else:
            self._offsets.extend([offset] * count)

    def __len__(self) -> int:
        return len(self._offsets)

    def __sizeof__(self) -> int:
        """The bytes it holds, its offsets' array included (`sys.getsizeof`)."""
        return object.__sizeof__(self) + (self._offsets.__sizeof__() if self._offsets is not _NONE_YET else 0)

    def __iter__(self) -> Iterator[float]:
        first = self._first
        return (first + offset / MICROSECONDS for offset in self._offsets)
