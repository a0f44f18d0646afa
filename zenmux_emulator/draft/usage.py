"""Token usage: prompt tokens counted from the request, the `usage` object in OpenAI's shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from zenmux_emulator.foundation import tokens
from zenmux_emulator.scenario.schema import UsageOverride


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """Deterministic prompt size: per message 3 + role + text (+85 per non-text part), 3 to prime
    the reply, and the tools' JSON."""
    total = tokens.TOKENS_PER_REPLY_PRIMING
    for message in body["messages"]:
        total += tokens.TOKENS_PER_MESSAGE + 1
        content = message.get("content")
        if isinstance(content, str):
            total += tokens.count(content)
        elif isinstance(content, list):
            for part in content:
                text = part.get("text", part.get("refusal")) if isinstance(part, dict) else None
                total += tokens.count(text) if isinstance(text, str) else tokens.TOKENS_PER_NON_TEXT_PART
        for call in message.get("tool_calls") or ():
            total += tokens.count(orjson.dumps(call).decode())
    if body.get("tools"):
        total += tokens.count(orjson.dumps(body["tools"]).decode())
    return total


def usage_object(prompt: int, completion: int, reasoning: int = 0, cached: int = 0,
                 override: UsageOverride | None = None) -> dict[str, Any]:
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
