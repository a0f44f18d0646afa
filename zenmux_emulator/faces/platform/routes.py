"""The Platform API's routes and their registration: a Management key (`sk-mg-v1-…`) only, the
answers in ZenMux's `{success, data}` shape, its errors in ZenMux's envelope; `/usage` and `/cost`
share a limit of `account.usage_rpm` requests a minute (60), the next a 429 whose `Retry-After` says
when the minute's oldest call leaves it on the emulator's clock (60 at most)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.gateway.auth import api_key
from zenmux_emulator.core.gateway.limits import GatewayConfig
from zenmux_emulator.core.journal.ledger import Bucket, Ledger
from zenmux_emulator.core.side import note
from zenmux_emulator.faces.platform import account, analytics
from zenmux_emulator.faces.platform.spec import BASE
from zenmux_emulator.foundation.errors import RequestRejected

MANAGEMENT_PREFIX = "sk-mg-v1-"
WINDOW_S = 60.0
Answer = Callable[[web.Request, GatewayConfig, Ledger], dict[str, Any]]


class Platform:
    """The Platform API of one app: its key check, the shared `/usage` and `/cost` limit, and the
    answers, read from the scenarios' `settings.account` and the ledger (the state's: every worker's
    and instance's completions counted)."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.started: float | None = None
        """When the account was first asked about, by any worker or instance (a plan without an
        `expires_at` expires 30 days later)."""

    def check_key(self, request: web.Request) -> None:
        """401 without a key; 403 for a key that is not a Management key (or not an accepted one)."""
        key = api_key(request.headers)
        if key is None:
            raise RequestRejected(401, "unauthorized", "Authorization header is missing")
        accepted = self.core.accepted_keys()
        if not key.startswith(MANAGEMENT_PREFIX) or (accepted and key not in accepted):
            raise RequestRejected(403, "access_denied", "This endpoint accepts a Management API Key (sk-mg-v1-…) only")

    async def take_analytics_call(self, limit: int) -> None:
        """Count a `/usage` or `/cost` request in the shared minute (every worker's and instance's);
        the one past `limit` is a 429 whose `Retry-After` says when the minute's oldest call leaves it,
        on the emulator's clock."""
        wait = await self.core.state.take_call("platform-analytics", limit, WINDOW_S, self.core.clock.now())
        if wait is not None:
            retry = max(1, math.ceil(round(wait, 6)))
            raise RequestRejected(
                429,
                "rate_limit",
                f"Usage and Cost share a limit of {limit} requests per minute",
                {"Retry-After": str(retry)},
            )

    def route(self, answer: Answer, counted: bool = True) -> Callable[[web.Request], Any]:
        """A route's handler; `counted`: its answer reads the ledger (a shared one is read from the store)."""

        async def handle(request: web.Request) -> web.Response:
            note(request, api="platform")
            self.check_key(request)
            config = self.core.registry.current.scenarios.gateway
            if self.started is None:
                self.started = await self.core.state.first_seen("platform", self.core.clock.now())
            data = answer(request, config, await self.core.state.ledger() if counted else Ledger(size=0))
            return web.Response(body=orjson.dumps({"success": True, "data": data}), content_type="application/json")

        return handle

    def analytics(self, types: tuple[str, ...], body: Body) -> Callable[[web.Request], Any]:
        """`/usage` or `/cost`: checked and limited on the loop, answered in a thread from the
        period's buckets as they stood (a bucket counted meanwhile may show part of its request)."""

        async def handle(request: web.Request) -> web.Response:
            note(request, api="platform")
            self.check_key(request)
            config = self.core.registry.current.scenarios.gateway
            await self.take_analytics_call(account.account_of(config).usage_rpm)
            query = analytics.parse_query(request.query, types)
            period = query.period(await self.core.state.ledger())  # the buckets, copied on the loop
            sent = await asyncio.to_thread(_answered, body, query, period)
            return web.Response(body=sent, content_type="application/json")

        return handle

    def subscription(self, request: web.Request, config: GatewayConfig, ledger: Ledger) -> dict[str, Any]:
        assert self.started is not None  # taken before any answer
        return account.subscription(config, ledger, self.core.clock.now(), self.started)


Body = Callable[[analytics.Query, list[Bucket]], dict[str, Any]]
"""How `/usage` or `/cost` answers a checked query from the period's buckets."""


def _answered(body: Body, query: analytics.Query, period: list[Bucket]) -> bytes:
    """The JSON answer (made in a thread: the buckets of 15,000 keys held the loop some 300 ms)."""
    return orjson.dumps({"success": True, "data": body(query, period)})


def routes(core: Core) -> list[web.RouteDef]:
    platform = Platform(core)
    return [
        web.get(f"{BASE}/payg/balance", platform.route(lambda r, config, ledger: account.balance(config, ledger))),
        web.get(
            f"{BASE}/flow_rate", platform.route(lambda r, config, ledger: account.flow_rate(config), counted=False)
        ),
        web.get(f"{BASE}/subscription/detail", platform.route(platform.subscription)),
        web.get(f"{BASE}/usage", platform.analytics(analytics.USAGE_TYPES, analytics.usage_body)),
        web.get(f"{BASE}/cost", platform.analytics(analytics.COST_TYPES, analytics.cost_body)),
    ]
