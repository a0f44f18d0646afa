"""Wiring of `--journal FILE` into the app: the writer's lifetime and the hand-over of finished entries."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from emulator.keys import ENTRY, STATE
from emulator.middlewares import CONTROL_PREFIX


async def journal_file_ctx(app: web.Application) -> AsyncIterator[None]:
    """Cleanup context: the writer runs while the app serves and is flushed on the way out."""
    writer = app[STATE].journal_file
    if writer is None:
        yield
        return
    writer.start()
    try:
        yield
    finally:
        await writer.close()


@web.middleware
async def journal_file_middleware(request: web.Request, handler: web.Handler) -> web.StreamResponse:
    """Outermost: once the journal middleware has closed the entry, queue it for the file."""
    writer = request.app[STATE].journal_file
    if writer is None or request.path.startswith(CONTROL_PREFIX):
        return await handler(request)
    try:
        return await handler(request)
    finally:
        entry = request.get(ENTRY)
        if entry is not None:
            writer.submit(entry)
