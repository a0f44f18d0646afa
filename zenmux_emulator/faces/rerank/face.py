"""The rerank face: `POST /api/v1/rerank` (ZenMux's docs_source/en/api/openai/rerank.md). Each
document's relevance is the cosine of its embedding with the query's (the embeddings face's
vectors, made for the rerank model), unless the rule scripts its score."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.inputs import inputs_plan
from zenmux_emulator.faces.common.vectors import embed, relevance
from zenmux_emulator.faces.rerank.models import MEDIA_TOKENS
from zenmux_emulator.faces.rerank.request import RerankRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.write.plan import ReplyPlan

ROUTE = "/api/v1/rerank"
DIMENSIONS = 1024
"""The dimensions of the vectors scores are made from."""


def scores_of(request: RerankRequest, draft: Draft, seed: int) -> list[float]:
    """Each document's relevance: the rule's scripted score for its exact text, else computed."""
    scripted = draft.spec.scores if draft.spec is not None and draft.spec.scores is not None else {}
    query = embed(request.model, request.query, DIMENSIONS, seed)
    made = []
    for text in request.documents:
        given = scripted.get(text)
        made.append(given if given is not None else relevance(query, embed(request.model, text, DIMENSIONS, seed)))
    return made


class RerankFace:
    """Parse, render and error envelope of the rerank API."""

    name = "rerank"

    def parse(self, body: object, ctx: FaceContext) -> RerankRequest:
        return parse_request(body, ctx.headers)

    def render(
        self,
        draft: Draft,
        request: RerankRequest,
        generation: str,
        created: int,
        headers: dict[str, str],
        seed: int,
        ctx: FaceContext,
    ) -> ReplyPlan:
        scores = scores_of(request, draft, seed)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[: request.top_n]
        results: list[dict[str, Any]] = []
        for index in ranked:
            result: dict[str, Any] = {"index": index, "relevance_score": scores[index]}
            if request.return_documents:
                result["document"] = request.originals[index]
            results.append(result)
        tokens = request.prompt_tokens
        usage: dict[str, Any] = {"prompt_tokens": tokens - request.media * MEDIA_TOKENS, "total_tokens": tokens}
        if request.media:
            usage["image_tokens"] = request.media * MEDIA_TOKENS
        body = {"object": "list", "model": request.requested_model, "results": results, "usage": usage}
        return inputs_plan(draft, headers, body, tokens)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)


RERANK = RerankFace()
