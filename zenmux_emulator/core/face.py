"""What a face is: the parts of one wire API that the shared request path calls.

A face turns its validated wire request into a `NeutralRequest` (`parse`), a drafted reply into
its wire bytes (`render`), and an error into its envelope (`error_body`). Everything between,
from authentication to drafting, is the core's (`core.endpoint`). Both `parse` and `render`
get the request's `FaceContext`: its session, its route's URL parameters and query, the request
headers, the rule that answers and a sink for warnings, so no face works any of them out again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from yarl import URL

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.write.plan import ReplyPlan

R = TypeVar("R", bound=NeutralRequest)


@dataclass(slots=True)
class FaceContext:
    """One request as its face sees it besides the body."""

    session: str
    """The caller's session (the key was checked before the face is called)."""
    headers: Mapping[str, str]
    """The request's headers."""
    params: Mapping[str, str]
    """The route's URL parameters (`{model}` in a path, say)."""
    url: URL
    """The request's URL, relative to the server (path and query)."""
    rule: str | None = None
    """The rule that answers, once matched (None: no rule did)."""
    warnings: list[str] = field(default_factory=list)
    """Warnings the face finds while rendering: the journal entry gets them."""
    body_bytes: int | None = None
    """The body's size in bytes as it arrived (inflated), once read (None: not known). A JSON array
    of n items takes at least 2n + 1 bytes, so a face's caps on items (`faces/common/counts.py`)
    need no count for a body too small to pass them."""
    probe: bool = False
    """A probe of `POST /_emulator/match` (would this request match?): it changes nothing, so a
    face must not use anything up for it (a thread message's one `continue`)."""

    @property
    def query(self) -> Mapping[str, str]:
        """The URL's query, parsed when a face first reads it (the URL keeps it): most faces never do."""
        return self.url.query


class Face(Protocol[R]):
    """One wire API: its name (the journal's `api`, the `api:` match key), parser, renderer and envelope."""

    name: str

    def parse(self, body: object, ctx: FaceContext) -> R:
        """Validate the JSON body; raise `RequestRejected` (400) naming the offending field."""
        ...

    def render(
        self,
        draft: Draft,
        request: R,
        generation: str,
        created: int,
        headers: dict[str, str],
        seed: int,
        ctx: FaceContext,
    ) -> ReplyPlan:
        """The reply as this face sends it: a JSON body, or SSE events with their pacing and faults."""
        ...

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """The error envelope this face answers with."""
        ...
