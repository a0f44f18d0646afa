"""Per-request control headers: `X-Emulator-Rule`, `X-Emulator-Fault`, `X-Emulator-Chaos`.

`--no-control-headers` (setting `control_headers: false`) ignores the control headers; the
`X-Emulator-Session` header is not one of them and always names the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.failures import Failure, parse_failure

RULE_HEADER = "X-Emulator-Rule"
FAULT_HEADER = "X-Emulator-Fault"
CHAOS_HEADER = "X-Emulator-Chaos"


@dataclass(frozen=True, slots=True)
class ControlHeaders:
    """What a request's control headers ask for."""

    rule: str | None = None
    fault: Failure | None = None
    chaos_rate: float | None = None
    chaos_failure: Failure | None = None


NO_CONTROL = ControlHeaders()


def read_control(headers: Mapping[str, str]) -> ControlHeaders:
    """The control headers of a request; a malformed one is a 400 `invalid_params`."""
    rule = headers.get(RULE_HEADER)
    fault_text = headers.get(FAULT_HEADER)
    chaos_text = headers.get(CHAOS_HEADER)
    if rule is None and fault_text is None and chaos_text is None:
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
    return ControlHeaders(rule.strip() if rule is not None else None, fault, rate, chaos_failure)
