"""The account's balance, subscription and Flow rate, from `settings.account` and the ledger."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from zenmux_emulator.core.gateway.limits import GatewayConfig
from zenmux_emulator.core.journal.ledger import Ledger
from zenmux_emulator.scenario.schema import Account, QuotaWindow

DEFAULT_TOP_UP = 100.0
"""The top-up credits of an account no scenario sets, when no key has a balance either."""
WINDOWS = (("quota_5_hour", 5 * 3600), ("quota_7_day", 7 * 86_400))


def account_of(config: GatewayConfig) -> Account:
    return config.account if config.account is not None else Account()


def iso(moment: float) -> str:
    """ISO 8601 in UTC with milliseconds, as ZenMux writes times."""
    return datetime.fromtimestamp(moment, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(moment * 1000) % 1000:03d}Z"


def _money(value: float) -> float:
    return round(value, 6)


def balance(config: GatewayConfig, ledger: Ledger) -> dict[str, Any]:
    """`payg/balance`: what PAYG keys spent comes off the bonus credits first, then the top-up."""
    account = account_of(config)
    top_up = account.top_up_credits
    if top_up is None:
        top_up = sum(config.balances.values()) if config.balances else DEFAULT_TOP_UP
    spent = ledger.metered_spent
    bonus = max(0.0, account.bonus_credits - spent)
    top_up -= max(0.0, spent - account.bonus_credits)
    return {
        "currency": "usd",
        "total_credits": _money(top_up + bonus),
        "top_up_credits": _money(top_up),
        "bonus_credits": _money(bonus),
    }


def flow_rate(config: GatewayConfig) -> dict[str, Any]:
    account = account_of(config)
    return {
        "currency": "usd",
        "base_usd_per_flow": account.base_usd_per_flow,
        "effective_usd_per_flow": account.effective_usd_per_flow or account.base_usd_per_flow,
    }


def _window(window: QuotaWindow, length: float, rate: float, ledger: Ledger, now: float) -> dict[str, Any]:
    spent, first = ledger.subscription_since(now - length)
    used = window.used_flows + spent / rate
    used = min(used, window.max_flows)
    return {
        "usage_percentage": round(used / window.max_flows, 4),
        "resets_at": iso(first + length) if first is not None else None,
        "max_flows": window.max_flows,
        "used_flows": round(used, 6),
        "remaining_flows": round(window.max_flows - used, 6),
        "used_value_usd": round(used * rate, 6),
        "max_value_usd": round(window.max_flows * rate, 2),
    }


def subscription(config: GatewayConfig, ledger: Ledger, now: float, started: float) -> dict[str, Any]:
    """`subscription/detail`: the plan, and the rolling windows' Flows used by subscription keys."""
    account = account_of(config)
    rate = account.effective_usd_per_flow or account.base_usd_per_flow
    plan = account.plan
    at = plan.expires_at
    if at is not None and at.tzinfo is None:  # a time without a zone is UTC, as ZenMux writes its times
        at = at.replace(tzinfo=UTC)
    expires = at.timestamp() if at is not None else started + 30 * 86_400
    body: dict[str, Any] = {
        "plan": {"tier": plan.tier, "amount_usd": plan.amount_usd, "interval": "month", "expires_at": iso(expires)},
        "currency": "usd",
        "base_usd_per_flow": account.base_usd_per_flow,
        "effective_usd_per_flow": rate,
        "account_status": account.account_status,
    }
    for name, length in WINDOWS:
        body[name] = _window(getattr(account, name), length, rate, ledger, now)
    body["quota_monthly"] = {
        "max_flows": account.quota_monthly_flows,
        "max_value_usd": round(account.quota_monthly_flows * rate, 2),
    }
    return body
