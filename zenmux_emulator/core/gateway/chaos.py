"""Chaos: a seeded share of requests fail with an error or a transport fault.

Whether request number N of a session fails is drawn from `random.Random(seed_int(seed, session, N))`,
so the same seed and the same requests in a session fail in the same places on every run and
every server. The failures themselves are `foundation.failures`.
"""

from __future__ import annotations

import random

from zenmux_emulator.foundation.failures import ErrorFailure, Failure, FaultFailure
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.scenario.schema import Chaos, ErrorReply, Fault

DEFAULT_CHAOS_STATUS = 503


def error_failure(error: ErrorReply) -> ErrorFailure:
    """A scripted error reply as a failure."""
    return ErrorFailure(error.status, error.type, error.message, error.headers or {})


def fault_failure(fault: Fault) -> FaultFailure:
    """A scripted transport fault as a failure."""
    return FaultFailure(fault.kind, fault.delay_ms)


def of_rule(chaos: Chaos) -> Failure:
    """A rule's chaos failure: its error or fault, else a 503."""
    if chaos.fault is not None:
        return fault_failure(chaos.fault)
    return error_failure(chaos.error) if chaos.error is not None else ErrorFailure(DEFAULT_CHAOS_STATUS)


def strikes(rate: float, seed: int, session: str, number: int) -> bool:
    """Whether request `number` of `session` fails at this rate (seeded, reproducible)."""
    if rate <= 0:
        return False
    return random.Random(seed_int("chaos", seed, session, number)).random() < rate
