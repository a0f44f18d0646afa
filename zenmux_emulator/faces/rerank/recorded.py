"""The recorder's decoder of rerank answers: the scores (`scores:`) the upstream gave, keyed by the
exact documents the request sent, so a replay answers those documents as recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zenmux_emulator.core.neutral.recorded import InputsDecoder


def rerank(answer: dict[str, Any], texts: Sequence[str]) -> dict[str, Any] | None:
    """`{scores: {document: score}}` from `results[]` (texts are the query, then the documents)."""
    results = answer.get("results")
    if not isinstance(results, list):
        return None
    scores: dict[str, float] = {}
    for result in results:
        index = result.get("index") if isinstance(result, dict) else None
        score = result.get("relevance_score") if isinstance(result, dict) else None
        if (
            not isinstance(index, int)
            or not 0 <= index < len(texts) - 1
            or not isinstance(score, (int, float))
            or not 0 <= score <= 1
        ):
            return None
        scores[texts[index + 1]] = float(score)
    return {"scores": scores}


DECODER = InputsDecoder(rerank)
"""The recorder's reading of a rerank answer (`FaceSpec.decoder`)."""
