"""What the matched reply does, decided before anything is carried out: a transport fault first
(if scripted), then one answer: an error, raw bytes, or a completion to draft."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.core.draft.compiled import CompiledReply
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.foundation.envelope import scripted_error
from zenmux_emulator.foundation.errors import RequestRejected, sequence_exhausted
from zenmux_emulator.foundation.failures import FaultFailure
from zenmux_emulator.scenario.schema import RawReply


@dataclass(slots=True)
class Outcome:
    """One request's answer from the rules. Exactly one of `error`, `raw`, or a completion (drafted
    from `reply`, or the default reply when `reply` is None) is given; `fault` comes before it."""

    fault: FaultFailure | None = None
    error: RequestRejected | None = None
    raw: RawReply | None = None
    reply: CompiledReply | None = None


DEFAULT = Outcome()
"""No rule answered: the default reply."""


def outcome_of(selection: Selection | None) -> Outcome:
    """The outcome of the selected reply (the default reply when nothing was selected)."""
    if selection is None:
        return DEFAULT
    reply = selection.reply
    if reply is None:
        return Outcome(error=sequence_exhausted(selection.rule.name, len(selection.rule.replies)))
    if reply.completes:
        return Outcome(None, None, None, reply)
    spec = reply.spec
    fault = FaultFailure(spec.fault.kind, spec.fault.delay_ms) if spec.fault is not None else None
    if spec.error is not None:
        error = spec.error
        return Outcome(fault, error=scripted_error(error.status, error.type, error.message, error.headers))
    return Outcome(fault, raw=spec.raw, reply=None if spec.raw is not None else reply)
