"""Failures parsed from text: `error=STATUS`, `delay=MS`, `hang`, `close` or `reset`.

The grammar of the `--chaos-failure` option and the `X-Emulator-Fault` / `X-Emulator-Chaos`
headers; scenario files script the same failures in YAML (`scenario.schema`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

FAILURE_FORMS = "error=STATUS, delay=MS, hang, close or reset"
FaultKind = Literal["delay", "hang", "close", "reset"]


@dataclass(frozen=True, slots=True)
class ErrorFailure:
    """Answer with an error envelope; type and message default to ZenMux's catalogue."""

    status: int
    type: str | None = None
    message: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"error={self.status}"


@dataclass(frozen=True, slots=True)
class FaultFailure:
    """A transport fault before any response: a delay, a hang, a close or a reset."""

    kind: FaultKind
    delay_ms: float = 0.0

    def __str__(self) -> str:
        return f"delay={self.delay_ms:g}" if self.kind == "delay" else self.kind


Failure = ErrorFailure | FaultFailure


def parse_failure(text: str) -> Failure:
    """`error=429`, `delay=2000`, `hang`, `close`, `reset`; ValueError otherwise."""
    word, _, value = text.strip().partition("=")
    word, value = word.strip().lower(), value.strip()
    try:
        if word == "error":
            status = int(value)
            if not 400 <= status <= 599:
                raise ValueError
            return ErrorFailure(status)
        if word == "delay":
            delay = float(value)
            if not 0 <= delay < float("inf"):
                raise ValueError
            return FaultFailure("delay", delay)
    except ValueError:
        raise ValueError(f"{text!r} is not a failure: expected {FAILURE_FORMS}") from None
    if word == "hang" and not value:
        return FaultFailure("hang")
    if word == "close" and not value:
        return FaultFailure("close")
    if word == "reset" and not value:
        return FaultFailure("reset")
    raise ValueError(f"{text!r} is not a failure: expected {FAILURE_FORMS}")
