"""Rate limits and balances per API key, kept per session.

Rate limits are token buckets on the emulator clock: `rpm` requests and `tpm` prompt tokens per
`window_s`, each bucket starting full and refilling continuously (capacity / window per second),
so a frozen clock advanced by the control API refills them without waiting. Balances are USD
credits: a reply costs its tokens at the served model's catalogue pricing (USD per million).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.foundation.envelope import CATALOGUE
from zenmux_emulator.foundation.errors import RequestRejected, ScenarioProblem
from zenmux_emulator.foundation.metered import metered
from zenmux_emulator.scenario.schema import (
    Account,
    BalanceError,
    FileSettings,
    Limits,
    ModelSpec,
)
from zenmux_emulator.state.sessions import GatewayState

DEFAULT_BALANCE_ERROR: BalanceError = "reject_no_credit"
BALANCE_HEADER = "X-Emulator-Balance"
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class KeyLimit:
    """The limits in force for one key (None: that dimension is not limited)."""

    rpm: int | None
    tpm: int | None
    window_s: float


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    """`settings.limits`, `settings.balances` and `settings.balance_error`, merged over the files."""

    limits: Limits | None = None
    balances: Mapping[str, float] = field(default_factory=dict)
    balance_error: BalanceError = DEFAULT_BALANCE_ERROR
    account: Account | None = None
    """The Platform API's account (`settings.account`); None: the defaults."""
    time_scale: float | None = None
    """`settings.time_scale`: what the waits are multiplied by when neither the request nor the command line says."""
    active: bool = field(init=False)
    """Whether any limit or balance is set: without, a request has nothing to take or pay (read
    on every request, worked out once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "active", self.limits is not None or bool(self.balances))

    def limit_for(self, key: str) -> KeyLimit | None:
        """The key's limits: the defaults, its override's given fields over them."""
        if self.limits is None:
            return None
        base = self.limits
        own = base.keys.get(key)
        rpm, tpm, window = base.rpm, base.tpm, base.window_s or 60.0
        if own is not None:
            rpm = own.rpm if own.rpm is not None else rpm
            tpm = own.tpm if own.tpm is not None else tpm
            window = own.window_s if own.window_s is not None else window
        if rpm is None and tpm is None:
            return None
        return KeyLimit(rpm, tpm, float(window))


def merge_settings(files: list[tuple[str, FileSettings]]) -> tuple[GatewayConfig, list[ScenarioProblem]]:
    """One config from every file's settings; the same setting given twice is a problem."""
    problems: list[ScenarioProblem] = []
    limits: Limits | None = None
    limits_from = ""
    balances: dict[str, float] = {}
    balance_from: dict[str, str] = {}
    error: BalanceError | None = None
    error_from = ""
    account: Account | None = None
    account_from = ""
    scale: tuple[float, str] | None = None
    for filename, spec in files:
        if spec.time_scale is not None:
            if scale is not None and scale[0] != spec.time_scale:
                problems.append(
                    ScenarioProblem(
                        filename, None, None, "settings.time_scale", f"time_scale is already {scale[0]:g} in {scale[1]}"
                    )
                )
            scale = (spec.time_scale, filename)
        if spec.account is not None:
            if account is not None:
                problems.append(
                    ScenarioProblem(
                        filename, None, None, "settings.account", f"the account is already set in {account_from}"
                    )
                )
            account, account_from = spec.account, filename
        if spec.limits is not None:
            if limits is not None:
                problems.append(
                    ScenarioProblem(filename, None, None, "settings.limits", f"limits are already set in {limits_from}")
                )
            limits, limits_from = spec.limits, filename
        for key, amount in spec.balances.items():
            if key in balances:
                problems.append(
                    ScenarioProblem(
                        filename,
                        None,
                        None,
                        f"settings.balances.{key}",
                        f"the balance of this key is already set in {balance_from[key]}",
                    )
                )
            balances[key], balance_from[key] = amount, filename
        if spec.balance_error is not None:
            if error is not None and error != spec.balance_error:
                problems.append(
                    ScenarioProblem(
                        filename,
                        None,
                        None,
                        "settings.balance_error",
                        f"balance_error is already {error!r} in {error_from}",
                    )
                )
            error, error_from = spec.balance_error, filename
    time_scale = None if scale is None else scale[0]
    return GatewayConfig(limits, balances, error or DEFAULT_BALANCE_ERROR, account, time_scale), problems


def _rate_headers(limit: KeyLimit, levels: dict[str, float]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for kind, capacity in (("requests", limit.rpm), ("tokens", limit.tpm)):
        if capacity is not None:
            headers[f"x-ratelimit-limit-{kind}"] = str(capacity)
            headers[f"x-ratelimit-remaining-{kind}"] = str(max(0, math.floor(levels[kind] + _EPS)))
    return headers


def bucket_needs(limit: KeyLimit, prompt: int) -> list[tuple[str, int, int]]:
    """(kind, capacity, need) of each limited bucket a request takes from: one request, its prompt tokens."""
    return [
        (kind, capacity, need)
        for kind, capacity, need in (("requests", limit.rpm, 1), ("tokens", limit.tpm, prompt))
        if capacity is not None
    ]


def rate_limited(limit: KeyLimit, levels: dict[str, float], wait: float) -> RequestRejected:
    """429 `rate_limit` with `Retry-After` (whole seconds, rounded up) and `retry-after-ms`."""
    headers = _rate_headers(limit, levels)
    headers["Retry-After"] = str(max(1, math.ceil(round(wait, 6))))
    headers["retry-after-ms"] = str(max(1, math.ceil(round(wait * 1000, 3))))
    return RequestRejected(429, "rate_limit", CATALOGUE[(429, "rate_limit")], headers)


def rate_headers(limit: KeyLimit | None, levels: dict[str, float]) -> dict[str, str]:
    """The `x-ratelimit-*` headers of an admitted request (none when the key is not limited)."""
    return {} if limit is None else _rate_headers(limit, levels)


def check_limits(config: GatewayConfig, state: GatewayState, key: str, prompt: int, now: float) -> dict[str, str]:
    """Admit the request (taking one request and its prompt tokens) and return the rate headers,
    or raise 429 `rate_limit` (`rate_limited`)."""
    limit = config.limit_for(key)
    if limit is None:
        return {}
    wanted = bucket_needs(limit, prompt)
    levels: dict[str, float] = {}
    wait = 0.0
    for kind, capacity, need in wanted:
        bucket = state.bucket(key, kind, capacity, now)
        bucket.refill(now, capacity, limit.window_s)
        levels[kind] = bucket.level
        if bucket.level + _EPS < need:
            # a prompt larger than the whole bucket can never pass: the wait is the window
            short = (need - bucket.level) if need <= capacity else capacity
            wait = max(wait, short * limit.window_s / capacity)
    if wait > 0:
        raise rate_limited(limit, levels, wait)
    for kind, _capacity, need in wanted:
        bucket = state.buckets[(key, kind)]
        bucket.level = max(0.0, bucket.level - need)
        levels[kind] = bucket.level
    return _rate_headers(limit, levels)


def check_balance(config: GatewayConfig, state: GatewayState, key: str) -> None:
    """Raise 402 (the configured type, the catalogue's message) once the key's balance is spent."""
    if key in config.balances and config.balances[key] - state.spent.get(key, 0.0) <= _EPS:
        raise out_of_credit(config)


def out_of_credit(config: GatewayConfig) -> RequestRejected:
    """402 of a spent balance: the configured type, the catalogue's message."""
    kind = config.balance_error
    return RequestRejected(402, kind, CATALOGUE[(402, kind)])


def charge(
    config: GatewayConfig, state: GatewayState, key: str, usage: Mapping[str, Any], model: ModelSpec | None
) -> dict[str, str]:
    """Deduct a reply's cost from the key's balance; the remaining balance as a header."""
    if key not in config.balances:
        return {}
    if model is not None:
        state.spent[key] = state.spent.get(key, 0.0) + priced(usage, model)
    return {BALANCE_HEADER: f"{config.balances[key] - state.spent.get(key, 0.0):.8f}"}


def priced(usage: Mapping[str, Any], model: ModelSpec) -> float:
    """A reply's cost in USD: its tokens at the model's prices for a prompt of its size, and what
    it metered besides (images, seconds of audio) at the model's unit prices."""
    pricing = model.pricing.for_prompt(int(usage.get("prompt_tokens") or 0))
    return (
        int(usage.get("prompt_tokens") or 0) * pricing.prompt
        + int(usage.get("completion_tokens") or 0) * pricing.completion
    ) / 1_000_000 + model.pricing.metered_cost(metered(usage))


def recharge(
    config: GatewayConfig,
    state: GatewayState,
    key: str,
    drafted: Mapping[str, Any],
    model: ModelSpec | None,
    served: Mapping[str, Any],
) -> dict[str, str]:
    """Charge the usage a face reports it served instead of the draft's, already charged: its
    `cost` (USD) when it gives one, else its tokens at the model's pricing. The remaining balance."""
    if key not in config.balances:
        return {}
    cost = served.get("cost")
    if cost is None:
        cost = priced(served, model) if model is not None else 0.0
    already = priced(drafted, model) if model is not None else 0.0
    state.spent[key] = state.spent.get(key, 0.0) - already + float(cost)
    return {BALANCE_HEADER: f"{config.balances[key] - state.spent.get(key, 0.0):.8f}"}
