"""Admission of a key: rate limits (429), then balance (402), in that order."""

from __future__ import annotations

from zenmux_emulator.core.gateway.limits import (
    GatewayConfig,
    bucket_needs,
    check_balance,
    check_limits,
    out_of_credit,
    rate_headers,
    rate_limited,
)
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.state.sessions import GatewayState
from zenmux_emulator.state.shared import Admission, AdmissionAsk, BucketAsk


def admit_key(config: GatewayConfig, counters: GatewayState, key: str, prompt: int, now: float) -> dict[str, str]:
    """Take the request from the key's rate buckets and check its balance; the `x-ratelimit-*`
    headers every answer to it carries. Counts the request for chaos (`counters.arrivals`)."""
    headers = check_limits(config, counters, key, prompt, now)
    try:
        check_balance(config, counters, key)
    except RequestRejected as exc:
        raise exc.with_headers(headers) from None
    counters.arrivals += 1
    return headers


def admission_ask(config: GatewayConfig, key: str, prompt: int) -> AdmissionAsk:
    """What the shared store takes atomically for this request: the same buckets and balance
    `admit_key` looks at in process."""
    limit = config.limit_for(key)
    buckets = (
        ()
        if limit is None
        else tuple(
            BucketAsk(kind, capacity, need, limit.window_s) for kind, capacity, need in bucket_needs(limit, prompt)
        )
    )
    return AdmissionAsk(key, buckets, config.balances.get(key))


def admitted(config: GatewayConfig, ask: AdmissionAsk, admission: Admission) -> dict[str, str]:
    """The headers of a request the shared store admitted, or its 429 or 402 as `admit_key` raises them."""
    limit = config.limit_for(ask.key)
    if admission.verdict == "limited" and limit is not None:
        raise rate_limited(limit, admission.levels, admission.wait)
    headers = rate_headers(limit, admission.levels)
    if admission.verdict == "broke":
        raise out_of_credit(config).with_headers(headers)
    return headers
