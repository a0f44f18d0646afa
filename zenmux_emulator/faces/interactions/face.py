"""The Interactions face: Google's native Interactions API v1 at `POST /api/v1/interactions` (and
`/api/v1beta1/interactions`), as ZenMux serves it: the model in the body as `{provider}/{model}`,
the reply's `model` the ZenMux slug, ZenMux's error envelope. No interaction is stored: each
request is answered from its own `input`."""

from __future__ import annotations

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.faces.interactions.render import (
    interaction,
    interaction_id,
    status_of,
    steps_of,
    stream_plan,
    usage_of,
)
from zenmux_emulator.faces.interactions.request import InteractionsRequest
from zenmux_emulator.faces.interactions.spec import NAME
from zenmux_emulator.faces.interactions.validate import validate
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.offload import large
from zenmux_emulator.write.plan import ReplyPlan


class InteractionsFace:
    """Parse, render and error envelope of the Interactions API."""

    name = NAME

    def parse(self, body: object, ctx: FaceContext) -> InteractionsRequest:
        if large(ctx.body_bytes):  # its validation and conversation's walks in a thread
            return prepared(ctx, lambda: warmed(self.read(body, ctx)))
        return self.read(body, ctx)

    def read(self, body: object, ctx: FaceContext) -> InteractionsRequest:
        parsed = validate(body, ctx.body_bytes)
        checked: dict[str, object] = body  # type: ignore[assignment]  # validate proved it a mapping
        return InteractionsRequest(checked, ctx.headers, parsed)

    def render(self, draft: Draft, exchange: Exchange[InteractionsRequest]) -> ReplyPlan:
        request, created = exchange.ask, exchange.created
        iid = interaction_id(exchange.generation)
        final = interaction(iid, draft.model, created, status_of(draft), steps_of(draft), usage_of(draft, request))
        headers = {**draft.headers, **exchange.headers}
        if request.stream:
            opening = interaction(iid, draft.model, created, "in_progress", None, None)
            plan = stream_plan(opening, final, draft.timing, headers, exchange.seed)
        else:
            plan = ReplyPlan(headers=headers, body=orjson.dumps(final))
        plan.reply_id = iid
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
