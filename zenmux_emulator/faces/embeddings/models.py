"""The embedding models ZenMux documents (docs_source/en/api/openai/create-embeddings.md), with
their full dimensions and the catalogue entries that price them (OpenAI's list prices, USD per
million tokens; models.dev's snapshot, the packaged catalogue's source, lists chat models only)."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing

DIMENSIONS: dict[str, int] = {
    "openai/text-embedding-3-small": 1536,
    "openai/text-embedding-3-large": 3072,
}
"""Each embedding model's full dimensions: `dimensions` may ask for fewer, never more."""

MAX_INPUT_TOKENS = 8192
"""The most tokens one input may have (the text-embedding-3 models)."""
MAX_REQUEST_TOKENS = 300_000
"""The most tokens a request's inputs may have in all: the models' "context" as admission reads it."""

CATALOGUE: dict[str, ModelSpec] = {
    "openai/text-embedding-3-small": ModelSpec(
        display_name="OpenAI: Text Embedding 3 Small",
        context_length=MAX_REQUEST_TOKENS,
        pricing=Pricing(prompt=0.02),
        owned_by="openai",
        tool_call=False,
        temperature=False,
    ),
    "openai/text-embedding-3-large": ModelSpec(
        display_name="OpenAI: Text Embedding 3 Large",
        context_length=MAX_REQUEST_TOKENS,
        pricing=Pricing(prompt=0.13),
        owned_by="openai",
        tool_call=False,
        temperature=False,
    ),
}
