"""The emulator's notion of time: the system clock, or a frozen one that tests can move."""

from __future__ import annotations

import time


class Clock:
    """Unix time for `created` fields and rate windows; frozen when `frozen_at` is set."""

    __slots__ = ("frozen_at",)

    def __init__(self, frozen_at: float | None = None) -> None:
        self.frozen_at = frozen_at

    @property
    def frozen(self) -> bool:
        return self.frozen_at is not None

    def now(self) -> float:
        """Seconds since the epoch."""
        return self.frozen_at if self.frozen_at is not None else time.time()

    def freeze(self, at: float) -> None:
        """Stop the clock at `at` (unix seconds)."""
        self.frozen_at = at

    def advance(self, seconds: float) -> None:
        """Move a frozen clock forward; freezes a running clock at now + seconds."""
        self.frozen_at = self.now() + seconds

    def unfreeze(self) -> None:
        self.frozen_at = None
