"""The Responses face: `POST /api/v1/responses` in OpenAI's wire format, with ZenMux's envelope
and extensions. One face object per app: its stored responses are in that app's state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.gateway.auth import authenticate
from zenmux_emulator.core.state import ObjectStore
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.faces.responses.output import failure, output_items, response_object, status_of, usage_of
from zenmux_emulator.faces.responses.render import json_plan, stream_plan
from zenmux_emulator.faces.responses.request import ResponsesRequest
from zenmux_emulator.faces.responses.store import StoredResponse
from zenmux_emulator.faces.responses.validate import validate
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.offload import large
from zenmux_emulator.state.sessions import session_name
from zenmux_emulator.write.plan import ReplyPlan


def response_id(generation: str) -> str:
    """`resp_` and the generation id: the body's `id`, deterministic like every other id."""
    return "resp_" + generation


class ResponsesFace:
    """Parse, render and error envelope of the Responses API, over one app's stored responses."""

    name = "responses"

    def __init__(self, core: Core) -> None:
        self.core = core
        self.store: ObjectStore[StoredResponse] = core.state.objects(StoredResponse.decode)
        """The stored responses, in the app's state (reset with their session)."""

    async def preload(self, body: Any, ctx: FaceContext) -> None:
        """Fetch the response `previous_response_id` names, for `parse` (in the request's context)."""
        previous = body.get("previous_response_id") if isinstance(body, dict) else None
        if isinstance(previous, str):
            ctx.preloaded = await self.store.get(ctx.session, previous)

    def session(self, headers: Mapping[str, str]) -> str:
        """The caller's session on the stored-response routes (the key is checked first, as the
        shared path does)."""
        return session_name(headers, authenticate(headers, self.core.accepted_keys()))

    def parse(self, body: object, ctx: FaceContext) -> ResponsesRequest:
        if large(ctx.body_bytes):
            return prepared(ctx, lambda: warmed(self.read(body, ctx)))
        return self.read(body, ctx)

    def read(self, body: object, ctx: FaceContext) -> ResponsesRequest:
        validated = validate(body, ctx.body_bytes)
        checked: Mapping[str, Any] = body  # type: ignore[assignment]  # validate proved it a mapping
        earlier: list[Mapping[str, Any]] = []
        previous = validated.body.previous_response_id
        if previous is not None:
            stored = ctx.preloaded
            if not isinstance(stored, StoredResponse):
                raise invalid_params(f"Previous response with id '{previous}' not found.")
            earlier = stored.conversation
        return ResponsesRequest(checked, ctx.headers, validated.body, validated.warnings, earlier)

    def render(self, draft: Draft, exchange: Exchange[ResponsesRequest]) -> ReplyPlan:
        request, generation, created = exchange.ask, exchange.generation, exchange.created
        headers, seed, ctx = exchange.headers, exchange.seed, exchange.ctx
        rid = response_id(generation)
        output = output_items(draft, request, rid, self.core.kit.signer, seed)
        status, incomplete = status_of(draft)
        usage = usage_of(draft)

        def response(state: str, items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
            return response_object(
                request, rid, created, draft.model, status=state, output=items, service_tier=draft.service_tier, **extra
            )

        final = response(status, output, usage=usage, incomplete=incomplete)
        all_headers = {**draft.headers, **headers}
        if not request.stream:
            self.keep(request, final, ctx.session)
            plan = json_plan(final, all_headers)
            plan.reply_id = rid
            return plan
        fault = draft.timing.fault if draft.timing else None
        failed = None
        if fault is not None and fault.kind == "error":
            failed = response("failed", [], usage=None, error=failure(fault.code, fault.message))
        self.keep(request, failed or final, ctx.session)
        plan = stream_plan(response("in_progress", [], usage=None), final, failed, draft.timing, all_headers, seed)
        plan.reply_id = rid
        return plan

    def keep(self, request: ResponsesRequest, body: dict[str, Any], session: str) -> None:
        """Store the response (unless `store: false`) for GET, input_items and continuations."""
        if not request.store:
            return
        conversation = [*request.items, *body["output"]]
        stored = StoredResponse(body, request.input_items, conversation)
        self.store.keep(session, body["id"], stored)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
