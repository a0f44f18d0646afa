"""A completion's generation record, made as its reply is about to be written (for the lookup
in `pipeline/generation.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zenmux_emulator.draft.draft import Draft
from zenmux_emulator.journal.generations import Generation
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.write.plan import ReplyPlan

APIS = {"chat": "chat.completions", "anthropic": "messages", "responses": "responses",
        "objectiveai": "query.completions"}
"""The `api` a face's generation reports (ZenMux names the first three; ObjectiveAI is this emulator's)."""


def _tokens(usage: Mapping[str, Any]) -> tuple[int, int, int, int, int]:
    """Prompt, completion, total, reasoning and cached tokens of chat-shaped usage."""
    completion = usage.get("completion_tokens_details") or {}
    prompt = usage.get("prompt_tokens_details") or {}
    return (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
            int(usage.get("total_tokens") or 0), int(completion.get("reasoning_tokens") or 0),
            int(prompt.get("cached_tokens") or 0))


def served_generation(face: str, generation: str, draft: Draft, plan: ReplyPlan, spec: ModelSpec | None, *,
                      created: float, provider_ms: float, retries: int) -> Generation:
    """The record of a completion about to be written: its timings are the scripted ones (the
    provider's latency, then the stream's waits), so the same request always reports the same."""
    usage = plan.usage if plan.usage is not None else draft.usage
    tokens = _tokens(usage)
    rates = None
    if spec is not None:
        prices = spec.pricing.for_prompt(tokens[0])
        rates = (prices.prompt / 1_000_000, prices.completion / 1_000_000)
    cost = usage.get("cost")
    if cost is None and rates is not None:
        cost = tokens[0] * rates[0] + tokens[1] * rates[1]
    waits: Sequence[float] = plan.waits if plan.events is not None else ()
    return Generation(
        api=APIS.get(face, face), generation_id=generation, model=draft.model, created=created,
        latency_ms=round(provider_ms + (waits[0] * 1000 if waits else 0)),
        generation_time_ms=round(sum(waits[1:]) * 1000), tokens=tokens, streamed=plan.events is not None,
        finish_reason=draft.finish_reason, rates=rates, cost=float(cost) if cost is not None else None,
        retries=retries)
