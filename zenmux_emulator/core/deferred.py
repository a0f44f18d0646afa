"""A face's routes registered at start-up, its code imported on the first request one of them takes.

A face's `FaceSpec` (its folder's `spec.py`) names the module whose `routes(core)` makes its
handlers and lists the (method, path) pairs they answer; `DeferredRoutes` registers those paths with
stand-in handlers, so the router, the index and the 404 hints know the face from the start while its
request models, renderers and libraries load only when a client first calls it (once per app). The
first request to a face waits for its import, which runs in a thread so that the event loop goes on
serving the others meanwhile. A table that differs from what the module's `routes` makes is an error
at that first request; `tests/unit/core/test_deferred.py` compares every shipped face's beforehand.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web

from zenmux_emulator.core.endpoint import Core

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Route = tuple[str, str]
"""A route as (method, path), the path as the router is given it."""


class RoutesModule(Protocol):
    """A face's module of handlers: its `routes(core)`."""

    def routes(self, core: Core) -> list[web.RouteDef]: ...


@dataclass(frozen=True, slots=True)
class DeferredRoutes:
    """`FaceSpec.routes` for a face whose handlers `module`'s `routes(core)` makes on first use."""

    module: str
    """The module's import name (`zenmux_emulator.faces.anthropic.routes`)."""
    table: tuple[Route, ...]
    """Every (method, path) its `routes` answers, in its order; GET routes answer HEAD too."""

    def __call__(self, core: Core) -> list[web.RouteDef]:
        loaded = LoadedRoutes(self, core)
        return [web.route(method, path, StandIn(loaded, (method, path)).handle) for method, path in self.table]


class LoadedRoutes:
    """One app's handlers of a deferred face, made by the first request that needs one."""

    __slots__ = ("core", "deferred", "handlers")

    def __init__(self, deferred: DeferredRoutes, core: Core) -> None:
        self.deferred = deferred
        self.core = core
        self.handlers: dict[Route, Handler] | None = None

    async def ready(self) -> None:
        """The face's module imported, in a thread (the loop serves other requests meanwhile), and
        its handlers made."""
        if self.handlers is None:
            await asyncio.to_thread(importlib.import_module, self.deferred.module)
            self.load()

    def load(self) -> dict[Route, Handler]:
        """The face's handlers by route, imported and made on the first call."""
        if self.handlers is None:
            self.handlers = made_routes(self.deferred.module, self.core)
            if tuple(self.handlers) != self.deferred.table:
                raise RuntimeError(
                    f"{self.deferred.module}.routes makes {sorted(self.handlers)}, "
                    f"its FaceSpec lists {sorted(self.deferred.table)}"
                )
        return self.handlers


def made_routes(module: str, core: Core) -> dict[Route, Handler]:
    """What `module`'s `routes(core)` makes, by (method, path)."""
    made: RoutesModule = importlib.import_module(module)
    return {(route.method, route.path): route.handler for route in made.routes(core)}


class StandIn:
    """The handler registered for one deferred route: the face's own, once loaded."""

    __slots__ = ("loaded", "real", "route")

    def __init__(self, loaded: LoadedRoutes, route: Route) -> None:
        self.loaded = loaded
        self.route = route
        self.real: Handler | None = None

    def resolved(self) -> Handler:
        """The face's handler of this route (loading the face on the first call)."""
        if self.real is None:
            self.real = self.loaded.load()[self.route]
        return self.real

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.real is None:
            await self.loaded.ready()
        return await self.resolved()(request)


def real_handler(handler: object) -> object:
    """A route's handler as the face made it: a stand-in's resolved (its face loaded), else itself,
    and under a face's own wrapper (`functools.wraps`) what it wraps."""
    owner = getattr(handler, "__self__", None)
    made = owner.resolved() if isinstance(owner, StandIn) else handler
    return inspect.unwrap(made) if callable(made) else made
