"""A completion's generation record, made as its reply is about to be written (for the lookup
in `core/generation.py`)."""

from __future__ import annotations

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.write.plan import ReplyPlan
from zenmux_emulator.write.sse import StreamOutcome


def served_generation(
    api: str,
    generation: str,
    draft: Draft,
    plan: ReplyPlan,
    spec: ModelSpec | None,
    stream: StreamOutcome | None,
    created: float,
    provider_s: float,
    retries: int,
) -> Generation:
    """The record of a completion about to be written: its timings are the scripted ones (the
    provider's latency, the stream's first wait, then its later waits as `stream` is written), so
    the same request always reports the same. Only references to what is at hand are kept; the
    lookup works out the rest."""
    first = plan.schedule.first if stream is not None and plan.schedule is not None else 0.0
    return Generation(
        api=api,
        generation_id=generation,
        model=draft.model,
        created=created,
        latency_s=provider_s + first,
        stream=stream,
        usage=plan.usage if plan.usage is not None else draft.usage,
        pricing=spec.pricing if spec is not None else None,
        finish_reason=draft.finish_reason,
        retries=retries,
        reply_id=plan.reply_id,
    )
