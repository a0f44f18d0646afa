"""The media faces' POST route: the shared `Endpoint`, reading a `multipart/form-data` body as a form
(the journal keeps its fields and its files' names, sizes and digests) and any other body as JSON,
and making the reply's media (pictures, encoded audio) in a thread before the face renders it
(`faces.media.made`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import orjson
from aiohttp import web

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.endpoint import Endpoint
from zenmux_emulator.core.exchange import Exchange, R
from zenmux_emulator.faces.media.form import is_form, journal_view, parse_form


@runtime_checkable
class Prepares(Protocol):
    def prepare(self, draft: Draft, request: Any, seed: int) -> Callable[[], object] | None:
        """The making of the media `render` will need for this draft (kept in the face's `Made`),
        to run in a thread; None when it is cheap enough to make on the loop."""


class MediaEndpoint(Endpoint[R]):
    """`Endpoint` with a form's body read as its parts, and the face's media made off the loop."""

    __slots__ = ()

    def read(self, raw: bytes, ex: Exchange[R]) -> Any:
        content_type = ex.ctx.headers.get("Content-Type", "")
        if not is_form(content_type):
            return super().read(raw, ex)
        ex.ctx.body_bytes = len(raw)
        form = parse_form(raw, content_type)
        entry = ex.entry
        entry.body = journal_view(form)
        entry.body_bytes = len(orjson.dumps(entry.body))
        return form

    async def settle(self, ex: Exchange[R]) -> Draft | web.StreamResponse:
        """The draft, then (once the rule's reply is known: speech reads its `content`) the media
        the face will render from it, made in a thread."""
        drafted = await super().settle(ex)
        face: object = self.face
        if isinstance(drafted, Draft) and isinstance(face, Prepares):
            work = face.prepare(drafted, ex.ask, ex.seed)
            if work is not None:
                await asyncio.to_thread(work)
        return drafted
