"""The chat completions face: `POST /api/v1/chat/completions` in OpenAI's wire format with ZenMux's extensions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.chat.reply import plan_reply
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.faces.chat.validate import validate_request
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.offload import large
from zenmux_emulator.write.plan import ReplyPlan

ROUTE = "/api/v1/chat/completions"


class ChatFace:
    """Parse, render and error envelope of the chat completions API."""

    name = "chat"

    def parse(self, body: object, ctx: FaceContext) -> ChatRequest:
        if large(ctx.body_bytes):
            return prepared(ctx, lambda: warmed(self.read(body, ctx)))
        return self.read(body, ctx)

    def read(self, body: object, ctx: FaceContext) -> ChatRequest:
        validated = validate_request(body, ctx.body_bytes)
        checked: Mapping[str, Any] = body  # type: ignore[assignment]  # validate_request proved it a mapping
        return ChatRequest(checked, ctx.headers, validated.request, validated.warnings)

    def render(self, draft: Draft, exchange: Exchange[ChatRequest]) -> ReplyPlan:
        request = exchange.ask
        return plan_reply(
            draft,
            completion_id=exchange.generation,
            created=exchange.created,
            stream=request.stream,
            include_usage=request.stream and request.include_usage,
            top_logprobs=request.top_logprobs,
            headers=exchange.headers,
            seed=exchange.seed,
        )

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)


CHAT = ChatFace()
