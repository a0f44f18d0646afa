"""The Anthropic face: `POST /api/anthropic/v1/messages`, Anthropic's Messages API as ZenMux serves it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.draft.draft import Draft
from zenmux_emulator.faces.anthropic.headers import betas, check_version
from zenmux_emulator.faces.anthropic.render import message_id, plan_reply
from zenmux_emulator.faces.anthropic.request import AnthropicRequest
from zenmux_emulator.faces.anthropic.validate import validate
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.pipeline.face import FaceContext
from zenmux_emulator.write.plan import ReplyPlan

PREFIX = "/api/anthropic/v1"
ROUTE = f"{PREFIX}/messages"


def parse_request(body: object, headers: Mapping[str, str]) -> AnthropicRequest:
    """Headers first (version, betas), then the whole body."""
    check_version(headers)
    asked, beta_warnings = betas(headers)
    request, warnings = validate(body)
    checked: Mapping[str, Any] = body  # type: ignore[assignment]  # validate proved it a mapping
    return AnthropicRequest(checked, headers, request, beta_warnings + warnings, asked)


class AnthropicFace:
    """Parse, render and error envelope of the Messages API; thinking blocks are signed with the
    server's signer, the one the chat face's reasoning uses."""

    name = "anthropic"

    def __init__(self, signer: Signer) -> None:
        self.signer = signer

    def parse(self, body: object, ctx: FaceContext) -> AnthropicRequest:
        return parse_request(body, ctx.headers)

    def render(self, draft: Draft, request: AnthropicRequest, generation: str, created: int,
               headers: dict[str, str], seed: int, ctx: FaceContext) -> ReplyPlan:
        plan = plan_reply(draft, request, generation, headers, seed, self.signer)
        plan.reply_id = message_id(generation)
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """ZenMux answers this face in its own envelope, with Anthropic's message text."""
        return error_body(status, type, message)
