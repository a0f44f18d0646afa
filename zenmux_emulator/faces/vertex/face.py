"""The Vertex AI / Gemini face: Google's generateContent at `/api/vertex-ai`, on its three path
forms; the model and the action are in the URL, read from the route's parameters."""

from __future__ import annotations

from collections.abc import Callable

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.faces.vertex import image_output
from zenmux_emulator.faces.vertex.paths import Target, target
from zenmux_emulator.faces.vertex.render import plan_reply, response_id, usage_metadata
from zenmux_emulator.faces.vertex.request import GeminiRequest
from zenmux_emulator.faces.vertex.spec import NAME
from zenmux_emulator.faces.vertex.validate import GenerateContentRequest, validate
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.offload import large
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.write.plan import ReplyPlan


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
        if large(ctx.body_bytes):
            request = prepared(ctx, lambda: warmed(gemini_request(body, ctx), "media_tokens"))
        else:
            request = gemini_request(body, ctx)
        image_output.picture_of(request)  # an image asked for at a size Gemini offers
        return request

    def check_model(self, request: GeminiRequest, listed: ModelSpec | None) -> None:
        image_output.check_model(request, listed)

    def prepare(self, draft: Draft, request: GeminiRequest, seed: int) -> Callable[[], object] | None:
        return image_output.prepare(draft, request, seed)

    def render(self, draft: Draft, exchange: Exchange[GeminiRequest]) -> ReplyPlan:
        request, generation, seed = exchange.ask, exchange.generation, exchange.seed
        image = image_output.image_output(draft, request, seed)
        plan = plan_reply(draft, request, generation, exchange.created, exchange.headers, seed, self.signer, image)
        plan.reply_id = response_id(generation)
        if image is not None:  # billed with the image's tokens
            plan.usage = image_output.billed(image_output.with_image_tokens(usage_metadata(draft), image.text))
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """ZenMux's unified envelope, as its error guide says every API answers: google-genai reads
        the status from HTTP and the text from `error.message`."""
        return error_body(status, type, message)
