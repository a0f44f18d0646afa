"""`…:countTokens`: the prompt's size as the face counts it for `usageMetadata.promptTokenCount`
(the route is the core's `SideRoute`: this is the face's answer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.side import SideAnswer
from zenmux_emulator.faces.vertex.request import by_modality, media_tokens, prompt_tokens
from zenmux_emulator.faces.vertex.validate import CountTokensRequest, validate


def count_tokens(body: object, headers: Mapping[str, str]) -> SideAnswer:
    """Validated as a generation would be, answered with `{"totalTokens": N}`, the
    `promptTokenCount` the same request would report."""
    counted: CountTokensRequest = validate(body, CountTokensRequest)
    inner = counted.generate_content_request
    normal: dict[str, Any] = (inner if inner is not None else counted).model_dump(by_alias=True, exclude_none=True)
    system, contents = normal.get("systemInstruction"), normal.get("contents") or []
    total = prompt_tokens(system, contents, normal.get("tools"))
    return SideAnswer({"totalTokens": total, "promptTokensDetails": by_modality(total, media_tokens(system, contents))})
