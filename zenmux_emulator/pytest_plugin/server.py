"""A real emulator on a free loopback port, served by its own event loop in a background thread,
so sync and async clients alike can talk to it from a test."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import Any, Self, TypeVar

from aiohttp import web

from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.keys import CLOCK, JOURNAL, REGISTRY, SETTINGS, STATE
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.spec import REGISTERED, FaceSpec
from zenmux_emulator.core.state import State
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.server.app import FACES, create_app, make_runner
from zenmux_emulator.settings import Settings

_T = TypeVar("_T")


class ServerState:
    """The running emulator's holders, for tests that look inside: settings, registry, state,
    journal and clock."""

    def __init__(self, app: web.Application) -> None:
        self.settings: Settings = app[SETTINGS]
        self.registry: ScenarioRegistry = app[REGISTRY]
        self.backend: State = app[STATE]
        """Sessions, stored objects, the clock and the scenarios' version (`core/state.py`)."""
        self.journal: Journal = app[JOURNAL]
        self.clock: Clock = app[CLOCK]

    @property
    def received(self) -> int:
        """Requests received so far, the control API's included."""
        return self.journal.received


class EmulatorServer:
    """`with EmulatorServer(settings) as server:` starts it; `server.base_url` ends in `/api/v1`,
    `server.anthropic_url` in `/api/anthropic`, `server.url(name)` in any registered face's base
    path (`faces`: the shipped ones by default, or a list with one's own `FaceSpec`)."""

    def __init__(
        self, settings: Settings | None = None, *, faces: Sequence[FaceSpec] = FACES, start_timeout: float = 30.0
    ) -> None:
        self.settings = (settings or Settings()).model_copy(update={"host": "127.0.0.1"})
        self.start_timeout = start_timeout
        self.app = create_app(self.settings, faces)
        self.faces = {face.name: face for face in self.app[REGISTERED]}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="zenmux-emulator", daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def state(self) -> ServerState:
        return ServerState(self.app)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, face: str) -> str:
        """A registered face's base URL, as its clients take it (`FaceSpec.base_path`)."""
        return self.origin + self.faces[face].base_path

    @property
    def base_url(self) -> str:
        return self.url("chat")

    @property
    def anthropic_url(self) -> str:
        """The Anthropic face's base URL: the anthropic SDK and Claude Code add `/v1/messages`."""
        return self.url("anthropic")

    @property
    def objectiveai_url(self) -> str:
        """The base URL of the ObjectiveAI Query Completions face (no `/v1`)."""
        return self.url("objectiveai")

    def start(self) -> Self:
        self._thread.start()
        self.port = self.call(self._start())
        return self

    async def _start(self) -> int:
        self._runner = make_runner(self.app, self.settings)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.settings.port)
        await site.start()
        return int(self._runner.addresses[0][1])

    def call(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run a coroutine on the server's loop and wait for its result."""
        future: Future[_T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(self.start_timeout)

    def stop(self) -> None:
        if self._runner is not None:
            self.call(self._runner.cleanup())
            self._runner = None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(self.start_timeout)
        self._loop.close()

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
