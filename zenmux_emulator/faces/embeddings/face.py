"""The embeddings face: `POST /api/v1/embeddings` in OpenAI's shape (ZenMux's
docs_source/en/api/openai/create-embeddings.md), its errors in ZenMux's envelope."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.inputs import inputs_plan
from zenmux_emulator.faces.common.vectors import base64_floats, embed, fitted
from zenmux_emulator.faces.embeddings.request import EmbeddingsRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.write.plan import ReplyPlan

ROUTE = "/api/v1/embeddings"


def vectors_of(request: EmbeddingsRequest, draft: Draft, seed: int) -> list[tuple[float, ...]]:
    """Each input's vector: the rule's scripted one for its exact text, else the computed one."""
    scripted = draft.spec.vectors if draft.spec is not None and draft.spec.vectors is not None else {}
    made = []
    for text in request.inputs:
        given = scripted.get(text)
        if given is not None:
            made.append(fitted(given, request.dimensions))
        else:
            made.append(embed(request.model, text, request.dimensions, seed))
    return made


class EmbeddingsFace:
    """Parse, render and error envelope of the embeddings API."""

    name = "embeddings"

    def parse(self, body: object, ctx: FaceContext) -> EmbeddingsRequest:
        return parse_request(body, ctx.headers)

    def render(
        self,
        draft: Draft,
        request: EmbeddingsRequest,
        generation: str,
        created: int,
        headers: dict[str, str],
        seed: int,
        ctx: FaceContext,
    ) -> ReplyPlan:
        data: list[dict[str, Any]] = []
        for index, vector in enumerate(vectors_of(request, draft, seed)):
            encoded: Any = base64_floats(vector) if request.encoding == "base64" else vector
            data.append({"object": "embedding", "embedding": encoded, "index": index})
        scripted = draft.spec.usage if draft.spec is not None else None
        tokens = (
            scripted.prompt_tokens
            if scripted is not None and scripted.prompt_tokens is not None
            else request.prompt_tokens
        )
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        body = {"object": "list", "data": data, "model": request.requested_model, "usage": usage}
        return inputs_plan(draft, headers, body, tokens)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)


EMBEDDINGS = EmbeddingsFace()
