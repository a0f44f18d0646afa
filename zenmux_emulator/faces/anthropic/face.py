"""The Anthropic face: `POST /api/anthropic/v1/messages`, Anthropic's Messages API as ZenMux serves it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.state import ObjectStore
from zenmux_emulator.faces.anthropic.headers import betas, check_version
from zenmux_emulator.faces.anthropic.render import plan_reply
from zenmux_emulator.faces.anthropic.request import AnthropicRequest
from zenmux_emulator.faces.anthropic.threads import ThreadTurn, continued, continued_again, next_turn, thread_of
from zenmux_emulator.faces.anthropic.validate import validate
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.offload import large, parse_off_loop
from zenmux_emulator.write.plan import ReplyPlan


def parse_request(body: object, headers: Mapping[str, str], body_bytes: int | None = None) -> AnthropicRequest:
    """Headers first (version, betas), then the whole body (of `body_bytes` bytes, when known)."""
    version_warnings = check_version(headers)
    asked, beta_warnings = betas(headers)
    request, warnings = validate(body, body_bytes=body_bytes)
    checked: Mapping[str, Any] = body  # type: ignore[assignment]  # validate proved it a mapping
    return AnthropicRequest(checked, headers, request, version_warnings + beta_warnings + warnings, asked)


class AnthropicFace:
    """Parse, render and error envelope of the Messages API over one app's message threads;
    thinking blocks are signed with the server's signer, the one the chat face's reasoning uses."""

    name = "anthropic"

    def __init__(self, core: Core) -> None:
        self.core = core
        self.signer = core.kit.signer
        self.threads: ObjectStore[ThreadTurn] = core.state.objects(ThreadTurn.decode)
        """The thread turns, in the app's state (reset with their session)."""

    async def preload(self, body: Any, ctx: FaceContext) -> None:
        """A `continue`: its thread's turn fetched, the whole request parsed, and (only when it is
        valid) the message it continues from marked continued, atomically in the state, so a second
        `continue` from it is refused whichever worker or instance takes it (a probe of `/match`
        marks nothing). Kept for `parse` in the request's context (`ctx.preloaded`): the whole request,
        or why it is refused."""
        try:
            thread = thread_of(body) if isinstance(body, dict) else None
        except RequestRejected:
            return  # `parse` refuses it
        if thread is None or thread["type"] != "continue":
            return
        assert isinstance(body, dict)
        session, previous = ctx.session, thread["previous_message_id"]
        outcome: AnthropicRequest | RequestRejected
        try:
            turn = await self.threads.get(session, previous)
            # longer than it came: counted; a costly schema check of its tools done in a thread (foundation.offload)
            outcome = await parse_off_loop(lambda: parse_request(continued(body, thread, turn), ctx.headers))
            if not ctx.probe and not await self.threads.once(session, previous):
                outcome = continued_again(previous)
        except RequestRejected as exc:
            outcome = exc
        ctx.preloaded = outcome

    def parse(self, body: object, ctx: FaceContext) -> AnthropicRequest:
        thread = thread_of(body) if isinstance(body, dict) else None
        if thread is not None and thread["type"] == "continue":
            assert isinstance(body, dict)
            outcome = ctx.preloaded
            if outcome is None:  # not preloaded: a server without the face's preload
                continued(body, thread, None)
            if isinstance(outcome, RequestRejected):
                raise outcome
            assert isinstance(outcome, AnthropicRequest)
            return outcome
        if large(ctx.body_bytes):
            return prepared(ctx, lambda: warmed(parse_request(body, ctx.headers, ctx.body_bytes)))
        return parse_request(body, ctx.headers, ctx.body_bytes)

    def render(self, draft: Draft, exchange: Exchange[AnthropicRequest]) -> ReplyPlan:
        request = exchange.ask
        plan, message = plan_reply(draft, request, exchange.generation, exchange.headers, exchange.seed, self.signer)
        plan.reply_id = message["id"]
        if request.body.get("thread") is not None and message["stop_reason"] != "refusal":
            self.keep(exchange.ctx.session, request, message)
        return plan

    def keep(self, session: str, request: AnthropicRequest, message: dict[str, Any]) -> None:
        """Keep the thread's turn under the reply's id, for the `continue` that names it."""
        turn = next_turn(request.body, message)
        self.threads.keep(session, message["id"], turn)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """ZenMux answers this face in its own envelope, with Anthropic's message text."""
        return error_body(status, type, message)
