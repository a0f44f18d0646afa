"""The media faces' POST route: the shared `Endpoint`, reading a `multipart/form-data` body as a form
(the journal keeps its fields and its files' names, sizes and digests) and any other body as JSON."""

from __future__ import annotations

from typing import Any

import orjson

from zenmux_emulator.core.endpoint import Endpoint
from zenmux_emulator.core.face import FaceContext, R
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.faces.media.form import is_form, journal_view, parse_form


class MediaEndpoint(Endpoint[R]):
    """`Endpoint` with a form's body read as its parts."""

    __slots__ = ()

    def read(self, raw: bytes, ctx: FaceContext, entry: JournalEntry) -> Any:
        content_type = ctx.headers.get("Content-Type", "")
        if not is_form(content_type):
            return super().read(raw, ctx, entry)
        ctx.body_bytes = len(raw)
        form = parse_form(raw, content_type)
        entry.body = journal_view(form)
        entry.body_bytes = len(orjson.dumps(entry.body))
        return form
