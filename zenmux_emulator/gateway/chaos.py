"""Chaos: a seeded share of requests fail with an error or a transport fault.

A failure is written `error=STATUS`, `delay=MS`, `hang`, `close` or `reset` (the grammar of the
`--chaos-failure` option and the `X-Emulator-Fault` header). Whether request number N of a session
fails is drawn from `random.Random(seed_int(seed, session, N))`, so the same seed and the same
requests in a session fail in the same places on every run and every server.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.foundation.envelope import scripted_error
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.scenario.schema import Chaos, ErrorReply, Fault
from zenmux_emulator.pipeline.state import EmulatorState
from zenmux_emulator.write.faults import before_response

DEFAULT_CHAOS_STATUS = 503
FAILURE_FORMS = "error=STATUS, delay=MS, hang, close or reset"


@dataclass(frozen=True, slots=True)
class Failure:
    """An injected failure: an error answer, or a fault before any response."""

    error: ErrorReply | None = None
    fault: Fault | None = None

    def __str__(self) -> str:
        if self.error is not None:
            return f"error={self.error.status}"
        assert self.fault is not None
        return f"delay={self.fault.delay_ms:g}" if self.fault.kind == "delay" else self.fault.kind


def parse_failure(text: str) -> Failure:
    """`error=429`, `delay=2000`, `hang`, `close`, `reset`; ValueError otherwise."""
    word, _, value = text.strip().partition("=")
    word, value = word.strip().lower(), value.strip()
    try:
        if word == "error":
            status = int(value)
            if not 400 <= status <= 599:
                raise ValueError
            return Failure(error=ErrorReply(status=status))
        if word == "delay":
            delay = float(value)
            if not 0 <= delay < float("inf"):
                raise ValueError
            return Failure(fault=Fault(kind="delay", delay_ms=delay))
    except ValueError:
        raise ValueError(f"{text!r} is not a failure: expected {FAILURE_FORMS}") from None
    if word in ("hang", "close", "reset") and not value:
        return Failure(fault=Fault(kind=word))  # type: ignore[arg-type]
    raise ValueError(f"{text!r} is not a failure: expected {FAILURE_FORMS}")


def of_rule(chaos: Chaos) -> Failure:
    """A rule's chaos failure: its error or fault, else a 503."""
    if chaos.fault is not None:
        return Failure(fault=chaos.fault)
    return Failure(error=chaos.error or ErrorReply(status=DEFAULT_CHAOS_STATUS))


def strikes(rate: float, seed: int, session: str, number: int) -> bool:
    """Whether request `number` of `session` fails at this rate (seeded, reproducible)."""
    if rate <= 0:
        return False
    return random.Random(seed_int("chaos", seed, session, number)).random() < rate


async def inject(request: web.Request, state: EmulatorState, entry: JournalEntry, failure: Failure,
                 headers: dict[str, str]) -> bool:
    """Carry the failure out: raise its error (with `headers`), or run its fault; True when the
    connection is gone (nothing may be sent), False when a delay passed and the request goes on."""
    if failure.error is not None:
        error = failure.error
        rejected: RequestRejected = scripted_error(error.status, error.type, error.message, error.headers)
        rejected.headers = {**headers, **rejected.headers}
        raise rejected
    assert failure.fault is not None
    entry.fault = failure.fault.kind
    with state.interruptible():
        gone = await before_response(request, failure.fault)
    if gone:
        entry.dropped = True
    return gone
