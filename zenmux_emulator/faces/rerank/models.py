"""The rerank models ZenMux documents (docs_source/en/api/openai/rerank.md): which take image and
video content, and their catalogue entries (priced at zero: ZenMux's page gives no prices)."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec

MULTIMODAL: dict[str, bool] = {
    "alibaba/gte-rerank-v2": False,
    "alibaba/gte-multimodal-rerank": True,
}
"""Each rerank model, and whether it ranks `{image}` and `{video}` content."""

MEDIA_TOKENS = 512
"""What one image or video counts in `usage.image_tokens` (ZenMux's example: 1,024 for two images)."""

CATALOGUE: dict[str, ModelSpec] = {
    "alibaba/gte-rerank-v2": ModelSpec(
        display_name="Alibaba: GTE Rerank v2",
        context_length=300_000,
        owned_by="alibaba",
        tool_call=False,
        temperature=False,
    ),
    "alibaba/gte-multimodal-rerank": ModelSpec(
        display_name="Alibaba: GTE Multimodal Rerank",
        context_length=300_000,
        owned_by="alibaba",
        tool_call=False,
        temperature=False,
        input_modalities=["text", "image", "video"],
    ),
}
