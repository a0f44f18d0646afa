"""`create_app(settings)`: the routes, middlewares and cleanup contexts of one emulator."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from aiohttp import web

from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.control.app import create_control_app
from zenmux_emulator.faces.chat.endpoint import chat_completions
from zenmux_emulator.faces.chat.models import get_model, list_models
from zenmux_emulator.journal.file import JournalFile
from zenmux_emulator.journal.journal import Journal
from zenmux_emulator.journal.persist import journal_file_ctx
from zenmux_emulator.pipeline.keys import STATE
from zenmux_emulator.draft.draft import Kit
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.pipeline.middlewares import add_request_id, envelope_middleware, journal_middleware
from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.state.sessions import SessionStore
from zenmux_emulator.settings import Settings
from zenmux_emulator.pipeline.state import EmulatorState


async def end_streams(app: web.Application) -> None:
    """`on_shutdown` runs before in-flight handlers are awaited: open streams end now, completely."""
    app[STATE].stop_streams()


async def scenarios_ctx(app: web.Application) -> AsyncIterator[None]:
    """Load the scenarios before serving (a bad file stops start-up), then watch them."""
    state = app[STATE]
    await state.registry.load()
    stop = asyncio.Event()
    watcher = None
    if state.settings.watch:
        from zenmux_emulator.rules.watch import watch  # watchfiles is imported only when files are watched

        watcher = asyncio.create_task(watch(state.registry, stop))
    yield
    stop.set()
    if watcher is not None:
        watcher.cancel()
        try:
            await watcher
        except asyncio.CancelledError:
            pass


def create_state(settings: Settings) -> EmulatorState:
    return EmulatorState(
        settings=settings,
        registry=ScenarioRegistry(settings.scenario_paths()),
        sessions=SessionStore(),
        journal=Journal(settings.journal_size),
        clock=Clock(settings.clock),
        kit=Kit(settings.seed, Signer.from_settings(settings.seed, settings.reasoning_secret)),
        journal_file=JournalFile(settings.journal_file) if settings.journal_file else None,
    )


def create_app(settings: Settings | None = None) -> web.Application:
    """A ready-to-run emulator; nothing is loaded until the app starts."""
    settings = settings or Settings()
    state = create_state(settings)
    app = web.Application(
        middlewares=[journal_middleware, envelope_middleware],
        client_max_size=settings.max_body_bytes,
    )
    app[STATE] = state
    app.add_routes([
        web.post("/api/v1/chat/completions", chat_completions),
        web.get("/api/v1/models", list_models),
        web.get("/api/v1/models/{model_id:.+}", get_model),
    ])
    app.add_subapp("/_emulator/", create_control_app(state))
    app.on_response_prepare.append(add_request_id)
    app.cleanup_ctx.append(journal_file_ctx)
    app.cleanup_ctx.append(scenarios_ctx)
    app.on_shutdown.append(end_streams)
    return app
