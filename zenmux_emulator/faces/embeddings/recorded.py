"""The recorder's decoder of embeddings answers: the vectors (`vectors:`) the upstream gave, keyed by
the exact input texts the request sent, so a replay answers those texts as recorded and fits the
vectors to the dimensions a later request asks for."""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

from zenmux_emulator.core.neutral.recorded import InputsDecoder


def _floats(value: object) -> list[float] | None:
    """An embedding as floats: a list of numbers, or OpenAI's base64 of little-endian float32."""
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        return [float(v) for v in value]
    if isinstance(value, str):
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError:
            return None
        if raw and len(raw) % 4 == 0:
            return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    return None


def _usage(answer: dict[str, Any]) -> dict[str, int]:
    usage = answer.get("usage")
    prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return {"prompt_tokens": prompt} if isinstance(prompt, int) and not isinstance(prompt, bool) else {}


def embeddings(answer: dict[str, Any], texts: Sequence[str]) -> dict[str, Any] | None:
    """`{vectors: {text: vector}}` from `data[].embedding` by `index`; None when it reads otherwise."""
    data = answer.get("data")
    if not isinstance(data, list) or len(data) != len(texts):
        return None
    vectors: dict[str, list[float]] = {}
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        vector = _floats(item.get("embedding")) if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < len(texts) or vector is None:
            return None
        vectors[texts[index]] = vector
    reply: dict[str, Any] = {"vectors": vectors}
    if usage := _usage(answer):
        reply["usage"] = usage
    return reply


DECODER = InputsDecoder(embeddings)
"""The recorder's reading of an embeddings answer (`FaceSpec.decoder`)."""
