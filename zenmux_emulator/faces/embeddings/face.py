"""The embeddings face: `POST /api/v1/embeddings` in OpenAI's shape (ZenMux's
docs_source/en/api/openai/create-embeddings.md), its errors in ZenMux's envelope.

A large request (more than `HEAVY_INPUTS` inputs, or a body past `HEAVY_BYTES`) is read and its
vectors made and encoded in a thread (`foundation.offload`), once per distinct input: 2,048 inputs
of fresh words held the event loop about a second."""

from __future__ import annotations

from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.inputs import inputs_plan
from zenmux_emulator.faces.common.vectors import base64_floats, embed, fitted
from zenmux_emulator.faces.embeddings.reply import VectorsReply
from zenmux_emulator.faces.embeddings.request import EmbeddingsRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.offload import defer
from zenmux_emulator.write.plan import ReplyPlan

HEAVY_INPUTS = 16
"""A request of more inputs than this is prepared in a thread."""
HEAVY_BYTES = 32 * 1024
"""A body larger than this is prepared in a thread, whatever its inputs."""

Encoded = orjson.Fragment | str
"""A vector as the reply writes it: its JSON array (a fragment orjson copies), or base64."""


def encoded(vector: tuple[float, ...], encoding: str) -> Encoded:
    """`vector` as the reply's `embedding` writes it, in `encoding`."""
    return base64_floats(vector) if encoding == "base64" else orjson.Fragment(orjson.dumps(vector))


def prepared(request: EmbeddingsRequest, seed: int) -> dict[str, Encoded]:
    """Each distinct input's computed vector, encoded (made once however often it is repeated)."""
    return {
        text: encoded(embed(request.model, text, request.dimensions, seed), request.encoding)
        for text in dict.fromkeys(request.inputs)
    }


class EmbeddingsFace:
    """Parse, render and error envelope of the embeddings API."""

    name = "embeddings"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        """The server's seed, which the vectors made in `parse` are made with (render is given it too)."""

    def parse(self, body: object, ctx: FaceContext) -> EmbeddingsRequest:
        made = ctx.preloaded
        if isinstance(made, EmbeddingsRequest):  # made in a thread by `prepare`
            return made
        given = body.get("input") if isinstance(body, dict) else None
        if (ctx.body_bytes or 0) <= HEAVY_BYTES and not (isinstance(given, list) and len(given) > HEAVY_INPUTS):
            return parse_request(body, ctx.headers)
        return defer(lambda: self.prepare(body, ctx))

    def prepare(self, body: object, ctx: FaceContext) -> EmbeddingsRequest:
        """The request read and its vectors made (in a thread, while the endpoint parses), kept for
        the parse that runs once it is done."""
        request = parse_request(body, ctx.headers)
        request.prepared = prepared(request, self.seed)
        ctx.preloaded = request
        return request

    def render(self, draft: Draft, exchange: Exchange[EmbeddingsRequest]) -> ReplyPlan:
        request, seed = exchange.ask, exchange.seed
        spec = draft.spec
        scripted: dict[str, list[float]] = (
            spec.vectors if isinstance(spec, VectorsReply) and spec.vectors is not None else {}
        )
        made = request.prepared if request.prepared is not None and seed == self.seed else {}
        data: list[dict[str, Any]] = []
        for index, text in enumerate(request.inputs):
            given = scripted.get(text)
            if given is not None:
                vector = encoded(fitted(given, request.dimensions), request.encoding)
            elif text in made:
                vector = made[text]
            else:
                vector = encoded(embed(request.model, text, request.dimensions, seed), request.encoding)
            data.append({"object": "embedding", "embedding": vector, "index": index})
        scripted_usage = draft.spec.usage if draft.spec is not None else None
        tokens = (
            scripted_usage.prompt_tokens
            if scripted_usage is not None and scripted_usage.prompt_tokens is not None
            else request.prompt_tokens
        )
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        body = {"object": "list", "data": data, "model": request.requested_model, "usage": usage}
        return inputs_plan(draft, exchange.headers, body, tokens)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
