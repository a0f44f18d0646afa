"""The images face (ZenMux's docs_source/en/api/openai/generate-an-image.md, create-image-edit.md and
their streaming-events pages): `data[]` of base64 images or URLs this emulator serves, `usage` in
tokens (billed per image made, at its size and quality), and with `stream: true` the `*.partial_image`
events then one `*.completed`. A rule's `image` (`reply.py`) gives the picture (a file), a refusal, or
how many partial images a stream sends."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.images.reply import ImageReply, Picture
from zenmux_emulator.faces.images.request import ImageRequest, parse_request
from zenmux_emulator.faces.images.spec import CONTENT
from zenmux_emulator.faces.images.store import ImageStore
from zenmux_emulator.faces.media.draw import MIME, SHAPES, Canvas, digest, draw, fitted
from zenmux_emulator.faces.media.fields import event
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.metered import METERED, meter
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

TOKENS_PER_MEGAPIXEL = {"low": 272, "medium": 1056, "high": 4160}
"""GPT image's output tokens for a 1024x1024 image, by quality (OpenAI's table); other sizes in proportion."""


def output_tokens(request: ImageRequest) -> int:
    width, height = request.size
    return round(TOKENS_PER_MEGAPIXEL[quality_of(request)] * width * height / (1024 * 1024)) * request.n


def quality_of(request: ImageRequest) -> str:
    return "medium" if request.quality == "auto" else request.quality


def usage_of(request: ImageRequest) -> dict[str, Any]:
    images = 65 * request.input_images
    input_tokens = request.prompt_tokens
    out = output_tokens(request)
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"image_tokens": images, "text_tokens": input_tokens - images},
        "output_tokens": out,
        "output_tokens_details": {"image_tokens": out, "text_tokens": 0},
        "total_tokens": input_tokens + out,
    }


PICTURES: Made[bytes] = Made(len)
"""The pictures `prepare` drew in a thread, by canvas, digest and stage: all their bytes depend on."""


def picture(canvas: Canvas, bits: bytes, stage: int = SHAPES, given: bytes | None = None) -> bytes:
    """`draw`'s bytes (or, for a rule's file `given`, `fitted`'s), made in a thread by `prepare`
    beforehand, else now."""
    if given is not None:
        return PICTURES.get((canvas, given, stage), partial(fitted, canvas, given, stage))
    return PICTURES.get((canvas, bits, stage), partial(draw, canvas, bits, stage))


def scripted(draft: Draft) -> Picture:
    """The rule's `image`, or none of its keys."""
    spec = draft.spec
    return spec.image if isinstance(spec, ImageReply) and spec.image is not None else Picture()


def given_file(draft: Draft) -> bytes | None:
    file = scripted(draft).file
    return None if file is None else file.data


def partials_of(draft: Draft, request: ImageRequest) -> int:
    """How many partial images a stream sends for each image: the rule's count, else the request's."""
    if not request.stream:
        return 0
    count = scripted(draft).partial_images
    return request.partial_images if count is None else count


def stages(partials: int) -> list[int]:
    """The stages each picture is sent at: its partial images', then whole."""
    return [SHAPES * (k + 1) // (partials + 1) for k in range(partials)] + [SHAPES]


def canvas_of(request: ImageRequest) -> Canvas:
    return Canvas(request.size, request.output_format, request.compression, request.background == "transparent")


def origin(ctx: FaceContext) -> str:
    scheme = ctx.headers.get("X-Forwarded-Proto", "http")
    return f"{scheme}://{ctx.headers.get('Host', 'localhost')}"


class ImagesFace:
    """Parse, render and error envelope of image generations (or, with `edit`, edits)."""

    name = "images"

    def __init__(self, store: ImageStore, edit: bool) -> None:
        self.store = store
        self.edit = edit
        self.kind = "image_edit" if edit else "image_generation"

    def parse(self, body: object, ctx: FaceContext) -> ImageRequest:
        return parse_request(body, ctx.headers, self.edit)

    def prepare(self, draft: Draft, request: ImageRequest, seed: int) -> Callable[[], object] | None:
        """Every picture `render` will send (each image's partial stages too), drawn in a thread:
        even a small one takes tens of milliseconds, more than the hop to the thread."""
        if scripted(draft).refusal is not None:
            return None
        canvas, given = canvas_of(request), given_file(draft)
        wanted = [
            (digest(seed, request.seed_material, i), stage)
            for i in range(request.n)
            for stage in stages(partials_of(draft, request))
        ]
        return lambda: [picture(canvas, bits, stage, given) for bits, stage in wanted]

    def render(self, draft: Draft, exchange: Exchange[ImageRequest]) -> ReplyPlan:
        request, generation, created = exchange.ask, exchange.generation, exchange.created
        headers, seed, ctx = exchange.headers, exchange.seed, exchange.ctx
        sent = {**draft.headers, **headers}
        refusal = scripted(draft).refusal
        if refusal is not None:
            refused = ReplyPlan(sent, error_body(400, "moderation_blocked", refusal), status=400)
            refused.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
            return refused
        canvas, given = canvas_of(request), given_file(draft)
        revised = draft.content if draft.spec is not None and draft.spec.content is not None else None
        usage = usage_of(request)
        billed = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
            METERED: [meter("image", "perCount", request.n, size=request.size_text, quality=quality_of(request))],
        }
        if request.stream:
            partials = partials_of(draft, request)
            events = Events.paced_but_last(
                lambda: self.events(request, (canvas, given, partials), seed, created, usage), 1
            )
            return sse_plan(sent, events, None, None, b"", None, usage=billed)
        data = [
            self.item(request, (canvas, given), seed, generation, index, revised, ctx) for index in range(request.n)
        ]
        body = {
            "created": created,
            "background": "transparent" if canvas.transparent else "opaque",
            "data": data,
            "output_format": request.output_format,
            "quality": quality_of(request),
            "size": request.size_text,
            "usage": usage,
        }
        plan = ReplyPlan(sent, orjson.dumps(body))
        plan.usage = billed
        return plan

    def item(
        self,
        request: ImageRequest,
        look: tuple[Canvas, bytes | None],
        seed: int,
        generation: str,
        index: int,
        revised: str | None,
        ctx: FaceContext,
    ) -> dict[str, Any]:
        drawn = picture(look[0], digest(seed, request.seed_material, index), SHAPES, look[1])
        item: dict[str, Any] = {}
        if request.response_format == "url":
            name = f"{generation}-{index}.{request.output_format}"
            self.store.keep(name, MIME[request.output_format], drawn)
            item["url"] = f"{origin(ctx)}{CONTENT}/{name}"
        else:
            item["b64_json"] = base64.b64encode(drawn).decode()
        if revised is not None:
            item["revised_prompt"] = revised
        return item

    def events(
        self,
        request: ImageRequest,
        look: tuple[Canvas, bytes | None, int],
        seed: int,
        created: int,
        usage: dict[str, Any],
    ) -> Iterator[bytes]:
        canvas, given, partials = look
        common = {
            "created_at": created,
            "size": request.size_text,
            "quality": quality_of(request),
            "background": "transparent" if canvas.transparent else "opaque",
            "output_format": request.output_format,
        }
        for index in range(request.n):
            bits = digest(seed, request.seed_material, index)
            for k in range(partials):
                stage = SHAPES * (k + 1) // (partials + 1)
                drawn = base64.b64encode(picture(canvas, bits, stage, given)).decode()
                kind = f"{self.kind}.partial_image"
                yield event({"type": kind, "b64_json": drawn, **common, "partial_image_index": k}, kind)
            kind = f"{self.kind}.completed"
            drawn = base64.b64encode(picture(canvas, bits, SHAPES, given)).decode()
            yield event({"type": kind, "b64_json": drawn, **common, "usage": usage}, kind)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
