"""The lifetime of the `--journal FILE` writer (the journal middleware hands it finished entries)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from zenmux_emulator.pipeline.keys import STATE


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
