"""The built-in catalogue: a handful of real ZenMux model ids, served when no file closes the catalogue."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing

CREATED = 1_750_000_000

DEFAULT_CATALOGUE: dict[str, ModelSpec] = {
    "openai/gpt-5": ModelSpec(display_name="OpenAI: GPT-5", context_length=400_000, reasoning=True,
                              pricing=Pricing(prompt=1.25, completion=10, input_cache_read=0.125),
                              owned_by="openai", created=CREATED, input_modalities=["text", "image", "file"]),
    "openai/gpt-4.1-mini": ModelSpec(display_name="OpenAI: GPT-4.1 Mini", context_length=1_047_576,
                                     pricing=Pricing(prompt=0.4, completion=1.6), owned_by="openai",
                                     created=CREATED, input_modalities=["text", "image"]),
    "anthropic/claude-sonnet-4.5": ModelSpec(display_name="Anthropic: Claude Sonnet 4.5", context_length=200_000,
                                             reasoning=True, pricing=Pricing(prompt=3, completion=15),
                                             owned_by="anthropic", created=CREATED,
                                             input_modalities=["text", "image", "file"]),
    "anthropic/claude-haiku-4.5": ModelSpec(display_name="Anthropic: Claude Haiku 4.5", context_length=200_000,
                                            reasoning=True, pricing=Pricing(prompt=1, completion=5),
                                            owned_by="anthropic", created=CREATED, input_modalities=["text", "image"]),
    "google/gemini-2.5-pro": ModelSpec(display_name="Google: Gemini 2.5 Pro", context_length=1_048_576,
                                       reasoning=True, pricing=Pricing(prompt=1.25, completion=10),
                                       owned_by="google", created=CREATED,
                                       input_modalities=["text", "image", "audio", "video", "file"]),
    "google/gemini-2.5-flash-lite": ModelSpec(display_name="Google: Gemini 2.5 Flash Lite", context_length=1_048_576,
                                              pricing=Pricing(prompt=0.1, completion=0.4), owned_by="google",
                                              created=CREATED, input_modalities=["text", "image", "audio", "video"]),
}
