"""`create_app(settings)`: the holders, faces, middlewares and cleanup contexts of one emulator."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from aiohttp import web

from zenmux_emulator.core import generation
from zenmux_emulator.core.draft.draft import Kit
from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.journal.file import JournalFile
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.keys import (
    CLOCK,
    JOURNAL,
    JOURNAL_FILE,
    REGISTRY,
    SETTINGS,
    STATE,
    WAITS,
    WATCHER,
)
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.rules.watch_status import WatchStatus
from zenmux_emulator.core.spec import (
    REGISTERED,
    FaceSpec,
    api_names,
    base_paths,
    checked,
    decoders_of,
    face_names,
    model_faces,
    unfaulted,
)
from zenmux_emulator.core.state import State, StateLifecycle
from zenmux_emulator.faces.shipped import FACES
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.scenario.cache import ParseCache
from zenmux_emulator.scenario.cache import folder as cache_folder
from zenmux_emulator.scenario.default_models import read_catalogue
from zenmux_emulator.server.control.app import create_control_app
from zenmux_emulator.server.edge import signposts
from zenmux_emulator.server.edge.connections import (
    SERVER_LOG,
    ConnectionLimits,
    GuardedServer,
    default_cap,
    report_accept_failures,
)
from zenmux_emulator.server.edge.middlewares import (
    add_request_id,
    journal_middleware,
)
from zenmux_emulator.server.inspector.app import create_inspector_app
from zenmux_emulator.server.state_local import LocalState
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.sessions import SessionStore

__all__ = ["FACES", "create_app", "create_core", "make_runner"]


async def end_streams(app: web.Application) -> None:
    """`on_shutdown` runs before in-flight handlers are awaited: open streams end now, completely."""
    app[WAITS].stop()


async def journal_file_ctx(app: web.Application) -> AsyncIterator[None]:
    """The `--journal FILE` writer runs while the app serves and is flushed on the way out."""
    writer = app.get(JOURNAL_FILE)
    if writer is None:
        yield
        return
    await writer.start()
    try:
        yield
    finally:
        await writer.close()


async def scenarios_ctx(app: web.Application) -> AsyncIterator[None]:
    """Load the scenarios before serving (a bad file stops start-up), then watch them."""
    registry = app[REGISTRY]
    await registry.load()
    stop = asyncio.Event()
    watcher = None
    if app[SETTINGS].watch:
        from zenmux_emulator.core.rules.watch import (
            watch,  # watchfiles is imported only when files are watched
        )

        watcher = asyncio.create_task(watch(registry, stop, app[WATCHER]))
    yield
    stop.set()
    if watcher is not None:
        watcher.cancel()
        try:
            await watcher
        except asyncio.CancelledError:
            pass


async def state_ctx(app: web.Application) -> AsyncIterator[None]:
    """The state answers before the app serves (a shared store's wrong URL stops start-up)."""
    state: StateLifecycle = app[STATE]
    await state.start()
    try:
        yield
    finally:
        await state.close()


def state_for(settings: Settings, registry: ScenarioRegistry, clock: Clock, journal: Journal) -> State:
    """The one state the app keeps: the store `--state` names, else this process's."""
    if settings.state is None:
        return LocalState(registry, clock, journal, SessionStore())
    from zenmux_emulator.server.state_shared import SharedState  # imported with --state only
    from zenmux_emulator.state.redis_store import RedisStore  # redis is imported only when it is used

    return SharedState(
        RedisStore(settings.state, settings.journal_size, settings.state_timeout), registry, clock, settings.seed
    )


def create_core(settings: Settings, journal: Journal, faces: Sequence[FaceSpec] = FACES) -> Core:
    """The holders every face's requests share."""
    catalogue = read_catalogue(settings.catalogue) if settings.catalogue is not None else None
    registry = ScenarioRegistry(
        settings.scenario_paths(), face_names(faces, catalogue), ParseCache(cache_folder(settings.cache_dir))
    )
    clock = Clock(settings.clock)
    return Core(
        settings=settings,
        registry=registry,
        state=state_for(settings, registry, clock, journal),
        clock=clock,
        kit=Kit(settings.seed, Signer.from_settings(settings.seed, settings.reasoning_secret)),
        waits=Waits(),
    )


def _record_missing(app: web.Application, core: Core, faces: Sequence[FaceSpec]) -> None:
    """`--record-missing`: requests no rule answers go to the upstream, and are recorded (each face's
    answers read by its own decoder)."""
    from zenmux_emulator.record.recorder import Recorder

    recorder = Recorder(core.settings, core.registry, decoders_of(faces), base_paths(faces))
    core.forward = recorder.forward

    async def upstream_ctx(app: web.Application) -> AsyncIterator[None]:
        await recorder.start()
        yield
        await recorder.close()

    app.cleanup_ctx.append(upstream_ctx)


def create_app(settings: Settings | None = None, faces: Sequence[FaceSpec] = FACES) -> web.Application:
    """A ready-to-run emulator speaking `faces` (the shipped ones by default; a face of one's own
    is registered by passing its `FaceSpec` with them); nothing is loaded until the app starts."""
    settings = settings or Settings()
    registered = checked(faces)
    journal = Journal(settings.journal_size, settings.journal_bytes, settings.journal_body_bytes)
    core = create_core(settings, journal, registered)
    core.api_names = api_names(registered)
    core.unfaulted = unfaulted(registered)
    core.model_faces = model_faces(registered)
    writer = JournalFile(settings.journal_file) if settings.journal_file else None
    app = web.Application(
        middlewares=[journal_middleware(journal, settings.seed, core.clock, writer, core.state)],
        client_max_size=settings.max_body_bytes,
        # bodies are inflated by core/body.py, bounded and with the face's envelope on failure
        handler_args={"auto_decompress": False},
    )
    app[SETTINGS] = settings
    app[REGISTRY] = core.registry
    app[STATE] = core.state
    app[JOURNAL] = journal
    app[CLOCK] = core.clock
    app[WAITS] = core.waits
    app[WATCHER] = WatchStatus()
    if writer is not None:
        app[JOURNAL_FILE] = writer
    if settings.record_missing:
        _record_missing(app, core, registered)
    app[REGISTERED] = registered
    for face in registered:
        app.add_routes(face.routes(core))
    app.add_routes(generation.routes(core))
    app.add_routes(signposts.index_routes())
    control = create_control_app(settings)
    control.add_subapp("/ui/", create_inspector_app())  # the inspector page, behind the control API's guard
    app.add_subapp("/_emulator/", control)
    app.on_response_prepare.append(add_request_id)
    app.cleanup_ctx.append(state_ctx)
    app.cleanup_ctx.append(journal_file_ctx)
    app.cleanup_ctx.append(scenarios_ctx)
    app.on_shutdown.append(end_streams)
    return app


class Runner(web.AppRunner):
    """The app's runner: aiohttp's, with the idle timeout, the one-line log of malformed requests,
    and the header deadline and connection cap of `GuardedServer`."""

    def __init__(self, app: web.Application, settings: Settings) -> None:
        super().__init__(
            app, access_log=None, shutdown_timeout=1.0, keepalive_timeout=settings.idle_timeout, logger=SERVER_LOG
        )
        self.limits = ConnectionLimits(settings.header_timeout, settings.max_connections or default_cap())

    async def _make_server(self) -> web.Server:
        report_accept_failures(asyncio.get_running_loop())
        return GuardedServer(await super()._make_server(), self.limits)


def make_runner(app: web.Application, settings: Settings) -> web.AppRunner:
    """The runner `serve` and the pytest plugin's server start the app with."""
    return Runner(app, settings)
