"""Token usage: the `usage` object in OpenAI's shape (the neutral form the faces map from)."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.scenario.schema import UsageOverride


def usage_object(
    prompt: int, completion: int, reasoning: int = 0, cached: int = 0, override: UsageOverride | None = None
) -> dict[str, Any]:
    """`usage` with both details objects, scripted overrides applied, total kept consistent."""
    if override is not None:
        prompt = override.prompt_tokens if override.prompt_tokens is not None else prompt
        completion = override.completion_tokens if override.completion_tokens is not None else completion
        reasoning = override.reasoning_tokens if override.reasoning_tokens is not None else reasoning
        cached = override.cached_tokens if override.cached_tokens is not None else cached
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "completion_tokens_details": {
            "accepted_prediction_tokens": 0,
            "audio_tokens": 0,
            "reasoning_tokens": reasoning,
            "rejected_prediction_tokens": 0,
        },
        "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": cached},
    }
