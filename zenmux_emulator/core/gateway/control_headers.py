"""Per-request control headers: `X-Emulator-Rule`, `X-Emulator-Fault`, `X-Emulator-Chaos`,
`X-Emulator-Time-Scale`.

`--no-control-headers` (setting `control_headers: false`) ignores the control headers; the
`X-Emulator-Session` header is not one of them and always names the session.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.failures import Failure, parse_failure

RULE_HEADER = "X-Emulator-Rule"
FAULT_HEADER = "X-Emulator-Fault"
CHAOS_HEADER = "X-Emulator-Chaos"
TIME_SCALE_HEADER = "X-Emulator-Time-Scale"


@dataclass(frozen=True, slots=True)
class ControlHeaders:
    """What a request's control headers ask for."""

    rule: str | None = None
    fault: Failure | None = None
    chaos_rate: float | None = None
    chaos_failure: Failure | None = None
    time_scale: float | None = None
    """What this request's waits are multiplied by (None: the server's `--time-scale`)."""


NO_CONTROL = ControlHeaders()


def read_control(headers: Mapping[str, str]) -> ControlHeaders:
    """The control headers of a request; a malformed one is a 400 `invalid_params`."""
    rule = headers.get(RULE_HEADER)
    fault_text = headers.get(FAULT_HEADER)
    chaos_text = headers.get(CHAOS_HEADER)
    scale_text = headers.get(TIME_SCALE_HEADER)
    if rule is None and fault_text is None and chaos_text is None and scale_text is None:
        return NO_CONTROL
    fault = None
    if fault_text is not None:
        try:
            fault = parse_failure(fault_text)
        except ValueError as exc:
            raise invalid_params(f"Header {FAULT_HEADER} is not valid: {exc}") from None
    rate, chaos_failure = None, None
    if chaos_text is not None:
        rate_text, _, failure_text = chaos_text.partition(";")
        try:
            rate = float(rate_text.strip())
            if not 0 <= rate <= 1:
                raise ValueError(f"{rate_text.strip()!r} is not a rate between 0 and 1")
            chaos_failure = parse_failure(failure_text) if failure_text.strip() else None
        except ValueError as exc:
            raise invalid_params(
                f"Header {CHAOS_HEADER} is not valid (expected e.g. '0.5' or '0.5; error=429'): {exc}"
            ) from None
    scale = None if scale_text is None else read_time_scale(scale_text)
    return ControlHeaders(rule.strip() if rule is not None else None, fault, rate, chaos_failure, scale)


def read_time_scale(text: str) -> float:
    """`X-Emulator-Time-Scale: F`, a finite number of at least 0; otherwise a 400 naming the header."""
    try:
        scale = float(text.strip())
    except ValueError:
        scale = math.nan
    if not math.isfinite(scale) or scale < 0:
        raise invalid_params(
            f"Header {TIME_SCALE_HEADER} is not valid: expected a number of at least 0 (0: no waits, "
            f"1: as scripted), got {text.strip()!r}"
        )
    return scale
