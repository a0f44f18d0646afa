"""Everything one running emulator holds, made in `create_app` and reached through `keys.STATE`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.journal.file import JournalFile
from zenmux_emulator.journal.journal import Journal
from zenmux_emulator.draft.draft import Kit
from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.state.sessions import SessionStore
from zenmux_emulator.settings import Settings


@dataclass(slots=True)
class EmulatorState:
    """The holders whose contents change at run time; the holders themselves never do."""

    settings: Settings
    registry: ScenarioRegistry
    sessions: SessionStore
    journal: Journal
    clock: Clock
    kit: Kit
    journal_file: JournalFile | None = None
    """The `--journal FILE` writer, when asked for."""
    received: int = 0
    stopping: bool = False
    paced_streams: set[asyncio.Task[object]] = field(default_factory=set)
    """Tasks in scripted waits (paced streams, delays, hangs); cancelled at shutdown so they end at once."""

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Scripted waits inside this block end at once when the server shuts down."""
        task = asyncio.current_task()
        assert task is not None
        self.paced_streams.add(task)
        try:
            yield
        finally:
            self.paced_streams.discard(task)

    def stop_streams(self) -> None:
        """Shutdown has begun: every paced stream skips its remaining waits."""
        self.stopping = True
        for task in self.paced_streams:
            task.cancel()

    def accepted_keys(self) -> frozenset[str]:
        """Keys from --api-key and from the scenario files; empty means any key is accepted."""
        from_files = self.registry.current.scenarios.api_keys
        return from_files.union(self.settings.api_keys) if self.settings.api_keys else from_files
