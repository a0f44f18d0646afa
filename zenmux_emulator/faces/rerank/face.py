"""The rerank face: `POST /api/v1/rerank` (ZenMux's docs_source/en/api/openai/rerank.md). Each
document's relevance is the cosine of its embedding with the query's (the embeddings face's
vectors, made for the rerank model), unless the rule scripts its score."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.common.inputs import inputs_plan
from zenmux_emulator.faces.common.vectors import embed, relevance
from zenmux_emulator.faces.rerank.models import MEDIA_TOKENS
from zenmux_emulator.faces.rerank.reply import ScoresReply
from zenmux_emulator.faces.rerank.request import RerankRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.offload import defer
from zenmux_emulator.write.plan import ReplyPlan

DIMENSIONS = 1024
"""The dimensions of the vectors scores are made from."""


HEAVY_DOCUMENTS = 16
"""A request of more documents than this is prepared in a thread (500 of new words held the loop
a quarter of a second)."""
HEAVY_BYTES = 32 * 1024
"""A body larger than this is prepared in a thread, whatever its documents."""


def computed(request: RerankRequest, seed: int) -> dict[str, float]:
    """Each distinct document's computed relevance to the query."""
    query = embed(request.model, request.query, DIMENSIONS, seed)
    return {
        text: relevance(query, embed(request.model, text, DIMENSIONS, seed))
        for text in dict.fromkeys(request.documents)
    }


def scores_of(request: RerankRequest, draft: Draft, seed: int, made: dict[str, float] | None = None) -> list[float]:
    """Each document's relevance: the rule's scripted score for its exact text, else computed (or
    taken from `made`, computed in advance with this seed)."""
    spec = draft.spec
    scripted: dict[str, float] = spec.scores if isinstance(spec, ScoresReply) and spec.scores is not None else {}
    made = made if made is not None else computed(request, seed)
    return [given if (given := scripted.get(text)) is not None else made[text] for text in request.documents]


class RerankFace:
    """Parse, render and error envelope of the rerank API."""

    name = "rerank"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        """The server's seed, which the scores made in `parse` are made with (render is given it too)."""

    def parse(self, body: object, ctx: FaceContext) -> RerankRequest:
        made = ctx.preloaded
        if isinstance(made, RerankRequest):  # made in a thread by `prepare`
            return made
        given = body.get("input") if isinstance(body, dict) else None
        documents = given.get("documents") if isinstance(given, dict) else None
        if (ctx.body_bytes or 0) <= HEAVY_BYTES and not (
            isinstance(documents, list) and len(documents) > HEAVY_DOCUMENTS
        ):
            return parse_request(body, ctx.headers)
        return defer(lambda: self.prepare(body, ctx))

    def prepare(self, body: object, ctx: FaceContext) -> RerankRequest:
        """The request read and its scores computed (in a thread, while the endpoint parses), kept
        for the parse that runs once it is done."""
        request = parse_request(body, ctx.headers)
        request.computed = computed(request, self.seed)
        ctx.preloaded = request
        return request

    def render(self, draft: Draft, exchange: Exchange[RerankRequest]) -> ReplyPlan:
        request, seed = exchange.ask, exchange.seed
        scores = scores_of(request, draft, seed, request.computed if seed == self.seed else None)
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
        return inputs_plan(draft, exchange.headers, body, tokens)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
