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
from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.exchange import Exchange, R, Routing
from zenmux_emulator.core.face import Face
from zenmux_emulator.faces.media.form import is_form, journal_view, parse_form
from zenmux_emulator.scenario.schema import ModelSpec


@runtime_checkable
class Prepares(Protocol):
    def prepare(self, draft: Draft, request: Any, seed: int) -> Callable[[], object] | None:
        """The making of the media `render` will need for this draft (kept in the face's `Made`),
        to run in a thread; None when it is cheap enough to make on the loop."""


@runtime_checkable
class ChecksModel(Protocol):
    def check_model(self, request: Any, listed: ModelSpec | None) -> None:
        """Refuse (400 naming the model) a served model whose catalogue entry cannot make this
        request's media (None: the catalogue does not list it, and it is let be)."""


class PreparingEndpoint(Endpoint[R]):
    """`Endpoint` with the face's media made off the loop once the reply is drafted: for a face that
    reads JSON alone (Gemini's image output)."""

    __slots__ = ("checks", "prepares")

    def __init__(self, face: Face[R], core: Core) -> None:
        super().__init__(face, core)
        held: object = face
        self.checks = held if isinstance(held, ChecksModel) else None
        """The face's model check, found once (a protocol's isinstance costs microseconds a request)."""
        self.prepares = held if isinstance(held, Prepares) else None

    def route_model(self, ex: Exchange[R]) -> Routing:
        """route, then the face's check that the model served makes the media asked for."""
        routing = super().route_model(ex)
        if self.checks is not None:
            self.checks.check_model(ex.ask, routing.listed)
        return routing

    async def settle(self, ex: Exchange[R]) -> Draft | web.StreamResponse:
        """The draft, then (once the rule's reply is known: speech reads its `content`) the media
        the face will render from it, made in a thread."""
        ex.entry.sent_body = None  # answered here: nothing is forwarded
        drafted = await super().settle(ex)
        if isinstance(drafted, Draft) and self.prepares is not None:
            work = self.prepares.prepare(drafted, ex.ask, ex.seed)
            if work is not None:
                await asyncio.to_thread(work)
        return drafted


class MediaEndpoint(PreparingEndpoint[R]):
    """`PreparingEndpoint` with a form's body read as its parts."""

    __slots__ = ()

    def read(self, raw: bytes, ex: Exchange[R]) -> Any:
        content_type = ex.ctx.headers.get("Content-Type", "")
        if not is_form(content_type):
            return super().read(raw, ex)
        ex.ctx.body_bytes = len(raw)
        form = parse_form(raw, content_type)
        entry = ex.entry
        entry.body = journal_view(form)
        if self.core.forward is not None:  # recording: the upstream gets the form itself, not its view
            entry.sent_body = raw
        entry.body_bytes = len(orjson.dumps(entry.body))
        return form
