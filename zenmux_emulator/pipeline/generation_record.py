"""A completion's generation record, made as its reply is about to be written (for the lookup
in `pipeline/generation.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.draft.draft import Draft
from zenmux_emulator.journal.generations import Generation
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.write.plan import ReplyPlan
from zenmux_emulator.write.sse import StreamOutcome

APIS = {"chat": "chat.completions", "anthropic": "messages", "responses": "responses",
        "objectiveai": "query.completions"}
"""The `api` a face's generation reports (ZenMux names the first three; ObjectiveAI is this emulator's)."""


def served_generation(face: str, generation: str, draft: Draft, plan: ReplyPlan, spec: ModelSpec | None,
                      stream: StreamOutcome | None, *, created: float, provider_ms: float, retries: int) -> Generation:
    """The record of a completion about to be written: its timings are the scripted ones (the
    provider's latency, the stream's first wait, then its later waits as `stream` is written), so
    the same request always reports the same. Only what is at hand is kept; the lookup works out
    the rest."""
    usage = plan.usage if plan.usage is not None else draft.usage
    completion = usage.get("completion_tokens_details") or _NONE
    cached = usage.get("prompt_tokens_details") or _NONE
    prompt = usage.get("prompt_tokens") or 0
    tokens = (prompt, usage.get("completion_tokens") or 0, usage.get("total_tokens") or 0,
              completion.get("reasoning_tokens") or 0, cached.get("cached_tokens") or 0)
    first = plan.schedule.first if stream is not None and plan.schedule is not None else 0.0
    rates = None
    if spec is not None:
        prices = spec.pricing if not spec.pricing.tiers else spec.pricing.for_prompt(prompt)
        rates = (prices.prompt / 1_000_000, prices.completion / 1_000_000)
    return Generation(APIS.get(face, face), generation, draft.model, created, provider_ms / 1000 + first, stream,
                      tokens, stream is not None, draft.finish_reason, rates, usage.get("cost"), retries)


_NONE: Mapping[str, Any] = {}
