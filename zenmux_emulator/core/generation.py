"""ZenMux's generation lookup over what the emulator served on every face:
`GET /api/v1/management/generation?id=` (camelCase) and the deprecated `GET /api/v1/generation?id=`
(snake_case), both found by the generation id or the id in the reply's body."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.gateway.auth import authenticate
from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

MANAGEMENT_ROUTE = "/api/v1/management/generation"
LEGACY_ROUTE = "/api/v1/generation"
NOT_FOUND = "not_found"
"""The type of an unknown id (ZenMux documents none; the envelope and 404 are its usual ones)."""
SUBSCRIPTION_PREFIX = "sk-ss-v1-"
"""Subscription keys get metering only: no `usage` or `ratingResponses` (as ZenMux documents)."""


def _iso(moment: float) -> str:
    """ISO 8601 in UTC with milliseconds, as ZenMux's `createAt`."""
    return datetime.fromtimestamp(moment, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(moment * 1000) % 1000:03d}Z"


def _native(generation: Generation) -> dict[str, Any]:
    """`nativeTokens` in ZenMux's documented shape."""
    prompt, completion, total, reasoning, cached = generation.tokens
    return {
        "completion_tokens": completion,
        "prompt_tokens": prompt,
        "total_tokens": total,
        "completion_tokens_details": {"reasoning_tokens": reasoning},
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def _rating(generation: Generation) -> dict[str, Any]:
    """`ratingResponses`: the charge, and one detail for each of prompt and completion when priced."""
    details = []
    rates = generation.rates
    if rates is not None:
        fees = (("prompt", rates[0], generation.tokens[0]), ("completion", rates[1], generation.tokens[1]))
        for item, rate, count in fees:
            details.append(
                {
                    "billAmount": rate * count,
                    "discountAmount": 0,
                    "feeItemCode": item,
                    "originAmount": rate * count,
                    "rate": rate,
                }
            )
    for used, rate in generation.fees:  # images, seconds of audio: at their unit prices
        amount = used["amount"] * rate
        details.append(
            {
                "billAmount": amount,
                "discountAmount": 0,
                "feeItemCode": used["item"],
                "originAmount": amount,
                "rate": rate,
                "unit": used["unit"],
                "quantity": used["amount"],
            }
        )
    total = generation.charged or 0.0
    return {
        "billAmount": total,
        "discountAmount": 0,
        "originAmount": total,
        "priceVersion": "v1",
        "ratingDetails": details,
    }


def management_body(generation: Generation, billed: bool) -> dict[str, Any]:
    """`GET /api/v1/management/generation`: camelCase, no envelope; billing only for a billed key."""
    body: dict[str, Any] = {
        "api": generation.api,
        "generationId": generation.generation_id,
        "model": generation.model,
        "createAt": _iso(generation.created),
        "generationTime": round(generation.generation_s * 1000),
        "latency": round(generation.latency_s * 1000),
        "nativeTokens": _native(generation),
        "streamed": generation.streamed,
        "finishReason": generation.finish_reason,
    }
    if billed:
        body["usage"] = generation.charged or 0.0
        body["ratingResponses"] = _rating(generation)
    body["requestRetryTimes"] = generation.retries
    body["finalRetry"] = False
    return body


def legacy_body(generation: Generation, billed: bool) -> dict[str, Any]:
    """`GET /api/v1/generation` (deprecated): the earlier snake_case fields; `usage` a string of credits."""
    body: dict[str, Any] = {
        "generation_id": generation.generation_id,
        "model": generation.model,
        "created_at": _iso(generation.created),
        "generation_time": round(generation.generation_s * 1000),
        "latency": round(generation.latency_s * 1000),
        "native_tokens": _native(generation),
        "streamed": generation.streamed,
        "finish_reason": generation.finish_reason,
    }
    if billed:
        body["usage"] = repr(generation.charged or 0.0)
    return body


class Lookup:
    """One route's handler: the caller's key, then the generation by `id`, in the route's shape."""

    __slots__ = ("core", "shape")

    def __init__(self, core: Core, shape: Callable[[Generation, bool], dict[str, Any]]) -> None:
        self.core = core
        self.shape = shape

    async def handle(self, request: web.Request) -> web.Response:
        try:
            key = authenticate(request.headers, self.core.accepted_keys())
            name = request.query.get("id", "").strip()
            if not name:
                raise invalid_params("Parameter id is required")
            found = self.core.generations.get(name)
            if found is None:  # served by another worker or instance
                found = await self.core.state.generation(name)
            if found is None:
                raise RequestRejected(404, NOT_FOUND, f"Generation {name} not found")
        except RequestRejected as exc:
            return web.Response(
                status=exc.status, body=error_body(exc.status, exc.type, exc.message), content_type="application/json"
            )
        billed = not key.startswith(SUBSCRIPTION_PREFIX)
        return web.Response(body=orjson.dumps(self.shape(found, billed)), content_type="application/json")


def routes(core: Core) -> list[web.RouteDef]:
    return [
        web.get(MANAGEMENT_ROUTE, Lookup(core, management_body).handle),
        web.get(LEGACY_ROUTE, Lookup(core, legacy_body).handle),
    ]
