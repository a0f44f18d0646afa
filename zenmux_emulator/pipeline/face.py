"""What a face is: the parts of one wire API that the shared request path calls.

A face turns its validated wire request into a `NeutralRequest` (`parse`), a drafted reply into
its wire bytes (`render`), and an error into its envelope (`error_body`). Everything between,
from authentication to drafting, is the core's (`pipeline.endpoint`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

from zenmux_emulator.draft.draft import Draft
from zenmux_emulator.neutral.request import NeutralRequest
from zenmux_emulator.write.plan import ReplyPlan

R = TypeVar("R", bound=NeutralRequest)


class Face(Protocol[R]):
    """One wire API: its name (the journal's `api`, the `api:` match key), parser, renderer and envelope."""

    name: str

    def parse(self, body: object, headers: Mapping[str, str]) -> R:
        """Validate the JSON body; raise `RequestRejected` (400) naming the offending field."""
        ...

    def render(self, draft: Draft, request: R, generation: str, created: int, headers: dict[str, str],
               seed: int) -> ReplyPlan:
        """The reply as this face sends it: a JSON body, or SSE events with their pacing and faults."""
        ...

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """The error envelope this face answers with."""
        ...
