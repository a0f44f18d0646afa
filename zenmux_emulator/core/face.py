"""What a face is: the parts of one wire API that the shared request path calls.

A face turns its validated wire request into a `NeutralRequest` (`parse`), a drafted reply into
its wire bytes (`render`), and an error into its envelope (`error_body`). Everything between,
from authentication to drafting, is the core's (`core.endpoint`). `parse` gets the request's
`FaceContext` (its session, its route's URL parameters and query, the request headers, what the
face's `preload` fetched); `render` gets the draft and the request's `Exchange`: the parsed
request, the context (the rule that answers, a sink for warnings), the reply's generation id,
`created`, headers and the server's seed, so no face works any of them out again.
"""

from __future__ import annotations

from typing import Protocol

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange, FaceContext, R
from zenmux_emulator.write.plan import ReplyPlan

__all__ = ["Face", "FaceContext", "R"]


class Face(Protocol[R]):
    """One wire API: its name (the journal's `api`, the `api:` match key), parser, renderer and envelope."""

    name: str

    def parse(self, body: object, ctx: FaceContext) -> R:
        """Validate the JSON body; raise `RequestRejected` (400) naming the offending field."""
        ...

    def render(self, draft: Draft, exchange: Exchange[R]) -> ReplyPlan:
        """The reply as this face sends it: a JSON body, or SSE events with their pacing and faults.
        It reads `exchange.ask` (the parsed request), `.ctx`, `.generation`, `.created`, `.headers`
        (the reply's, which the face may add to) and `.seed`; it writes only `exchange.ctx.warnings`."""
        ...

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """The error envelope this face answers with."""
        ...
