"""Admission of a key: rate limits (429), then balance (402), in that order."""

from __future__ import annotations

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.gateway.limits import GatewayConfig, check_balance, check_limits
from zenmux_emulator.state.sessions import GatewayState


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
