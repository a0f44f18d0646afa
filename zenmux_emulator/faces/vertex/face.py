"""The Vertex AI / Gemini face: Google's generateContent at `/api/vertex-ai`, on its three path
forms; the model and the action are in the URL, read from the route's parameters."""

from __future__ import annotations

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.vertex.paths import Target, target
from zenmux_emulator.faces.vertex.render import plan_reply, response_id
from zenmux_emulator.faces.vertex.request import GeminiRequest
from zenmux_emulator.faces.vertex.validate import GenerateContentRequest, validate
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.write.plan import ReplyPlan

NAME = "vertex"


def gemini_request(body: object, ctx: FaceContext, where: Target | None = None) -> GeminiRequest:
    """The request the URL and the body make together; 400 naming the field when the body is wrong."""
    where = where or target(ctx.params, ctx.query)
    request: GenerateContentRequest = validate(body, body_bytes=ctx.body_bytes)
    checked: dict[str, object] = body  # type: ignore[assignment]  # validate proved it a mapping
    return GeminiRequest(
        checked,
        ctx.headers,
        request,
        where.model,
        stream=where.stream,
        sse=where.sse,
        gemini_api=where.gemini_api,
        warnings=where.warnings,
    )


class VertexFace:
    """Parse, render and error envelope of generateContent; function calls are signed with the
    server's signer, the one every face's signed reasoning uses."""

    name = NAME

    def __init__(self, signer: Signer) -> None:
        self.signer = signer

    def parse(self, body: object, ctx: FaceContext) -> GeminiRequest:
        return gemini_request(body, ctx)

    def render(self, draft: Draft, exchange: Exchange[GeminiRequest]) -> ReplyPlan:
        generation = exchange.generation
        plan = plan_reply(
            draft, exchange.ask, generation, exchange.created, exchange.headers, exchange.seed, self.signer
        )
        plan.reply_id = response_id(generation)
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """ZenMux's unified envelope, as its error guide says every API answers: google-genai reads
        the status from HTTP and the text from `error.message`."""
        return error_body(status, type, message)
