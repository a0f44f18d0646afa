"""The waits holder: tasks in scripted waits (paced streams, delays, hangs) end at once on shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class Waits:
    """The tasks waiting on a scenario's schedule, and whether the server is stopping."""

    __slots__ = ("stopping", "tasks")

    def __init__(self) -> None:
        self.stopping = False
        self.tasks: set[asyncio.Task[object]] = set()

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Scripted waits inside this block end at once when the server shuts down."""
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always called from a request's task
            yield
            return
        self.tasks.add(task)
        try:
            yield
        finally:
            self.tasks.discard(task)

    def stop(self) -> None:
        """Shutdown has begun: every waiting task skips its remaining waits."""
        self.stopping = True
        for task in self.tasks:
            task.cancel()
