"""The Imagen face's answer: `predictions[]`, one a picture (`bytesBase64Encoded`, `mimeType`,
the enhanced `prompt` when `enhancePrompt` asks, `safetyAttributes` with no category flagged when
`includeSafetyAttributes` does), as Vertex AI's Imagen answers and
google-genai's `generate_images` reads; a rule's `refusal` filters them all, as Imagen's safety
filter does (said in `raiFilteredReason` when `includeRaiReason` asks, else no prediction). Each
image sent is metered (`image`, `perCount`, at its size) for the model's price an image; filtered
ones are not, as Google bills only the images it returns."""

from __future__ import annotations

import base64
from collections.abc import Callable
from functools import partial
from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.inputs import inputs_plan
from zenmux_emulator.faces.imagen.request import ImagenRequest, parse_request
from zenmux_emulator.faces.imagen.spec import NAME
from zenmux_emulator.faces.media.draw import MIME, Canvas, digest, draw
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.metered import METERED, meter
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.write.plan import ReplyPlan

UNFLAGGED: dict[str, list[Any]] = {"categories": [], "scores": []}
"""The safety attributes `includeSafetyAttributes` asks for: no category flagged."""
PICTURES: Made[bytes] = Made(len)
"""The pictures `prepare` drew in a thread, by canvas and digest: all their bytes depend on."""


def model_of(params: dict[str, str] | Any) -> str:
    """The model of the URL (`{provider}/{model}`; the Gemini API's form without one is Google's)."""
    return f"{params.get('provider') or 'google'}/{params['name']}"


def canvas_of(request: ImagenRequest) -> Canvas:
    return Canvas(request.size, request.output_format, request.quality, transparent=False)


def picture(canvas: Canvas, bits: bytes) -> bytes:
    """`draw`'s bytes, drawn in a thread by `prepare` beforehand, else now."""
    return PICTURES.get((canvas, bits), partial(draw, canvas, bits))


class ImagenFace:
    """Parse, render and error envelope of `:predict`."""

    name = NAME

    def parse(self, body: object, ctx: FaceContext) -> ImagenRequest:
        return parse_request(body, ctx.headers, model_of(ctx.params))

    def prepare(self, draft: Draft, request: ImagenRequest, seed: int) -> Callable[[], object] | None:
        """Every picture `render` will send, drawn in a thread (none when a refusal filters them)."""
        if draft.refusal is not None:
            return None
        canvas = canvas_of(request)
        wanted = [digest(seed, request.seed_material, i) for i in range(request.count)]
        return lambda: [picture(canvas, bits) for bits in wanted]

    def check_model(self, request: ImagenRequest, listed: ModelSpec | None) -> None:
        """A model the catalogue lists as making no images cannot answer `:predict`."""
        if listed is not None and "image" not in listed.output_modalities:
            made = ", ".join(listed.output_modalities)
            raise invalid_params(
                f"Model {request.requested_model} is not valid: it does not generate images (its output is {made})"
            )

    def render(self, draft: Draft, exchange: Exchange[ImagenRequest]) -> ReplyPlan:
        request, seed = exchange.ask, exchange.seed
        body: dict[str, Any] = {}
        made = 0
        if draft.refusal is not None:
            if request.rai_reason:
                body["predictions"] = [{"raiFilteredReason": draft.refusal}]
        else:
            made = request.count
            body["predictions"] = [self.prediction(draft, request, seed, index) for index in range(made)]
            if request.safety:  # the prompt's own scores, which google-genai reads apart
                body["predictions"].append({"contentType": "Positive Prompt", "safetyAttributes": UNFLAGGED})
        plan = inputs_plan(draft, exchange.headers, body, request.prompt_tokens)
        if made and plan.usage is not None:
            width, height = request.size
            facts = {"size": f"{width}x{height}"}
            if request.image_quality is not None:  # a GPT image model's price is by quality and size
                facts["quality"] = request.image_quality
            plan.usage = {**plan.usage, METERED: [meter("image", "perCount", made, **facts)]}
        return plan

    def prediction(self, draft: Draft, request: ImagenRequest, seed: int, index: int) -> dict[str, Any]:
        drawn = picture(canvas_of(request), digest(seed, request.seed_material, index))
        item: dict[str, Any] = {
            "bytesBase64Encoded": base64.b64encode(drawn).decode(),
            "mimeType": MIME[request.output_format],
        }
        if request.safety:
            item["safetyAttributes"] = UNFLAGGED
        if request.enhance:
            scripted = draft.spec is not None and draft.spec.content is not None
            item["prompt"] = draft.content if scripted else request.prompt
        return item

    def error_body(self, status: int, type: str, message: str) -> bytes:
        """ZenMux's unified envelope, as on generateContent: google-genai reads the status from HTTP
        and the text from `error.message`."""
        return error_body(status, type, message)
