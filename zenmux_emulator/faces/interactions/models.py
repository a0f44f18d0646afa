"""The model ZenMux's Interactions page documents (docs_source/en/api/vertexai/create-interaction-native.md),
which the packaged catalogue (chat models) lacks."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing

MODELS: dict[str, ModelSpec] = {
    "google/gemini-omni-flash": ModelSpec(
        display_name="Google: Gemini Omni Flash",
        context_length=1_048_576,
        max_output_tokens=65_536,
        reasoning=True,
        pricing=Pricing(prompt=0.5, completion=3.0, input_cache_read=0.05),
        owned_by="google",
        input_modalities=["text", "image", "video", "file"],
        output_modalities=["text", "video"],
    ),
}
"""`google/gemini-omni-flash`, priced as Gemini 3 Flash Preview is in the catalogue (ZenMux's page
gives no price)."""
