"""The waits holder: tasks in scripted waits (paced streams, delays, hangs) end at once on shutdown."""

from __future__ import annotations

import asyncio
from types import TracebackType


class Waits:
    """The tasks waiting on a scenario's schedule, and whether the server is stopping."""

    __slots__ = ("stopping", "tasks")

    def __init__(self) -> None:
        self.stopping = False
        self.tasks: set[asyncio.Task[object]] = set()

    def interruptible(self) -> Interruptible:
        """Scripted waits inside this block end at once when the server shuts down."""
        return Interruptible(self)

    def stop(self) -> None:
        """Shutdown has begun: every waiting task skips its remaining waits."""
        self.stopping = True
        for task in self.tasks:
            task.cancel()


class Interruptible:
    """`Waits.interruptible()`'s block: its task is among the waiting ones while inside. A slotted
    object, not a generator's context manager: an open stream holds one for its whole life, and a
    generator's frame and wrapper weigh some 350 bytes to this one's 56."""

    __slots__ = ("task", "waits")

    def __init__(self, waits: Waits) -> None:
        self.waits = waits
        self.task: asyncio.Task[object] | None = None

    def __enter__(self) -> None:
        task = asyncio.current_task()
        if task is not None:  # always, from a request's task
            self.task = task
            self.waits.tasks.add(task)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.task is not None:
            self.waits.tasks.discard(self.task)
