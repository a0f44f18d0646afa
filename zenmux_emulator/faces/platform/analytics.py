"""`GET /api/v1/management/usage` and `/cost` (ZenMux's account-usage.md, account-cost.md): the
ledger's minute buckets for the period asked for, grouped as the console groups them, every
number a decimal string. The emulator keeps no latencies per bucket: performance figures are
`null` ("no statistic available", as ZenMux documents null)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from zenmux_emulator.core.journal.ledger import Bucket, Ledger
from zenmux_emulator.foundation.errors import invalid_params

DIMENSIONS = {"BIZ_MTH": ("%Y%m", 8), "BIZ_DT": ("%Y%m%d", 10), "BIZ_HOUR": ("%Y%m%d%H", 12)}
"""Each `query_dimension`: the `query_time` format, and how much of a minute names a series point."""
BILL_TYPES = frozenset({"metered", "subscription", "fallbackMetered"})
PARAMETERS = frozenset({"type", "query_dimension", "query_time", "api_key_ids", "model_slugs", "bill_types"})
USAGE_TYPES = ("usage", "provider", "performance")
COST_TYPES = ("cost", "provider_cost")


@dataclass(frozen=True, slots=True)
class Query:
    """A checked query: its type, the period's prefix and point length, and the filters."""

    type: str
    prefix: str
    point: int
    keys: frozenset[str]
    models: frozenset[str]
    bills: frozenset[str]

    def period(self, ledger: Ledger) -> list[Bucket]:
        """The ledger's buckets of the period asked for, taken on the event loop (the ledger changes
        there); the answer is made from them in a thread (`routes`)."""
        return list(ledger.buckets(self.prefix))

    def selected(self, buckets: Iterable[Bucket]) -> list[Bucket]:
        return [
            bucket
            for bucket in buckets
            if (not self.keys or bucket.key_id in self.keys)
            and (not self.models or bucket.model in self.models)
            and (not self.bills or ("subscription" if bucket.subscription else "metered") in self.bills)
        ]


def _csv(value: str) -> frozenset[str]:
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def parse_query(query: Mapping[str, str], types: tuple[str, ...]) -> Query:
    """The query string checked as ZenMux documents it: 400 naming the parameter otherwise."""
    unknown = sorted(set(query) - PARAMETERS)
    if unknown:
        raise invalid_params(f"Parameter {unknown[0]} is not supported")
    for name in ("type", "query_dimension", "query_time"):
        if not query.get(name):
            raise invalid_params(f"Parameter {name} is required")
    kind = query["type"]
    if kind not in types:
        raise invalid_params(f"Parameter type is not valid: expected one of {', '.join(types)}")
    dimension = query["query_dimension"]
    if dimension not in DIMENSIONS:
        raise invalid_params(f"Parameter query_dimension is not valid: expected one of {', '.join(DIMENSIONS)}")
    form, point = DIMENSIONS[dimension]
    moment = query["query_time"]
    try:
        if len(moment) != point - 2:
            raise ValueError
        datetime.strptime(moment, form)
    except ValueError:
        raise invalid_params(
            f"Parameter query_time is not valid: expected {form.replace('%', '')} for {dimension}"
        ) from None
    bills = _csv(query.get("bill_types", ""))
    if bills - BILL_TYPES:
        raise invalid_params(f"Parameter bill_types is not valid: expected {', '.join(sorted(BILL_TYPES))}")
    models = _csv(query.get("model_slugs", ""))
    if kind.startswith("provider") and len(models) != 1:
        raise invalid_params(f"Parameter model_slugs is not valid: type {kind} needs exactly one model")
    return Query(kind, moment, point, _csv(query.get("api_key_ids", "")), models, bills)


def _n(value: float) -> str:
    return str(int(value))


def _usd(value: float) -> str:
    return f"{value:.10f}"


def _ratio(part: float, whole: float) -> str | None:
    return f"{part / whole:.4f}" if whole else None


def _grouped(
    buckets: Iterable[Bucket], point: int, by: Callable[[Bucket], str], measure: Callable[[Bucket], float]
) -> dict[tuple[str, str], list[float]]:
    """(point, group) → [requests, measure], in time order then group order."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for bucket in sorted(buckets, key=lambda b: (b.minute[:point], by(b))):
        totals = groups[(bucket.minute[:point], by(bucket))]
        totals[0] += bucket.requests
        totals[1] += measure(bucket)
    return groups


def _row(point: str, model: str | None, kind: str | None, key: str | None, **values: str | None) -> dict[str, Any]:
    return {"bizTime": point, "modelSlug": model, "tokenType": kind, "apiKeyId": key, **values}


def _tokens(bucket: Bucket) -> float:
    return bucket.prompt_tokens + bucket.completion_tokens


def _provider(buckets: list[Bucket], model: str) -> dict[str, Any]:
    """One endpoint, the model's vendor: the emulator's default provider serves every model."""
    if not buckets:
        return {
            "fastestEndpointSlug": None,
            "mainEndpointSlug": None,
            "uptime": None,
            "endpointCount": "0",
            "endpointUsages": [],
        }
    slug = model.split("/", 1)[0]
    requests = sum(b.requests for b in buckets)
    tokens = sum(_tokens(b) for b in buckets)
    cost = sum(b.cost for b in buckets)
    usage = {
        "endpointSlug": slug,
        "requestCounts": _n(requests),
        "tokens": _n(tokens),
        "requestRatio": "1.0000",
        "tokenRatio": _ratio(tokens, tokens),
        "medianLatency": None,
        "medianThroughput": None,
        "billAmount": _usd(cost),
        "billAmountRatio": _ratio(cost, cost),
    }
    return {
        "fastestEndpointSlug": slug,
        "mainEndpointSlug": slug,
        "uptime": "1.0000",
        "endpointCount": "1",
        "endpointUsages": [usage],
    }


def usage_body(query: Query, period: list[Bucket]) -> dict[str, Any]:
    buckets = query.selected(period)
    if query.type == "provider":
        return _provider(buckets, next(iter(query.models)))
    if query.type == "performance":
        models = sorted({b.model for b in buckets})
        return {
            "medianLatency": None,
            "medianThroughput": None,
            "modelPerformances": [{"modelSlug": m, "medianLatency": None, "medianThroughput": None} for m in models],
            "latencyDetails": [],
            "throughputDetails": [],
        }
    point = query.point
    prompt = sum(b.prompt_tokens for b in buckets)
    completion = sum(b.completion_tokens for b in buckets)
    requests = sum(b.requests for b in buckets)
    empty = not buckets
    by_type: list[dict[str, Any]] = []
    for (moment, _), (_, tokens) in _grouped(buckets, point, lambda b: "", lambda b: b.prompt_tokens).items():
        by_type.append(_row(moment, None, "prompt", None, tokens=_n(tokens), requestCounts=None))
    for (moment, _), (_, tokens) in _grouped(buckets, point, lambda b: "", lambda b: b.completion_tokens).items():
        by_type.append(_row(moment, None, "completion", None, tokens=_n(tokens), requestCounts=None))
    by_type.sort(key=lambda row: row["bizTime"])
    return {
        "tokensTotal": None if empty else _n(prompt + completion),
        "tokensPrompt": None if empty else _n(prompt),
        "tokensCompletion": None if empty else _n(completion),
        "requestCounts": None if empty else _n(requests),
        "tokensByModel": [
            _row(moment, model, None, None, tokens=_n(tokens), requestCounts=_n(count))
            for (moment, model), (count, tokens) in _grouped(buckets, point, lambda b: b.model, _tokens).items()
        ],
        "tokensByTokenType": by_type,
        "tokensByApiKey": [
            _row(moment, None, None, key, tokens=_n(tokens), requestCounts=_n(count))
            for (moment, key), (count, tokens) in _grouped(buckets, point, lambda b: b.key_id, _tokens).items()
        ],
        "countsByWebSearch": [],
        "countsByMedia": _media(buckets, point),
    }


def _media(buckets: list[Bucket], point: int) -> list[dict[str, Any]]:
    """The media each model made or read, by time: units counted (images) and seconds (audio), as
    decimal strings; a model that metered none has no row (the emulator's addition: ZenMux's usage
    documents only `countsByWebSearch`)."""
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for bucket in sorted(buckets, key=lambda b: (b.minute[:point], b.model)):
        if bucket.counted or bucket.seconds:
            row = totals[(bucket.minute[:point], bucket.model)]
            row[0] += bucket.requests
            row[1] += bucket.counted
            row[2] += bucket.seconds
    return [
        _row(moment, model, None, None, requestCounts=_n(requests), counts=_n(counted), seconds=f"{seconds:.3f}")
        for (moment, model), (requests, counted, seconds) in totals.items()
    ]


def _summary(buckets: list[Bucket]) -> dict[str, Any]:
    if not buckets:
        return dict.fromkeys(
            (
                "totalCost",
                "inputCost",
                "outputCost",
                "otherCost",
                "requestCounts",
                "requestAvgCost",
                "totalTokens",
                "millionTokenAvgCost",
            )
        )
    total = sum(b.cost for b in buckets)
    requests = sum(b.requests for b in buckets)
    tokens = sum(_tokens(b) for b in buckets)
    return {
        "totalCost": _usd(total),
        "inputCost": _usd(sum(b.prompt_cost for b in buckets)),
        "outputCost": _usd(sum(b.completion_cost for b in buckets)),
        "otherCost": _usd(sum(b.other_cost for b in buckets)),
        "requestCounts": _n(requests),
        "requestAvgCost": _usd(total / requests),
        "totalTokens": _n(tokens),
        "millionTokenAvgCost": _usd(total / tokens * 1_000_000) if tokens else None,
    }


def cost_body(query: Query, period: list[Bucket]) -> dict[str, Any]:
    buckets = query.selected(period)
    if query.type == "provider_cost":
        return {"summary": _summary(buckets), "analysis": _provider(buckets, next(iter(query.models)))}
    point = query.point
    by_type: list[dict[str, Any]] = []
    for kind, measure in (("prompt", lambda b: b.prompt_cost), ("completion", lambda b: b.completion_cost)):
        for (moment, _), (_, amount) in _grouped(buckets, point, lambda b: "", measure).items():
            by_type.append(_row(moment, None, kind, None, billAmount=_usd(amount), requestCounts=None))
    by_type.sort(key=lambda row: row["bizTime"])
    analysis = {
        "costByModel": [
            _row(moment, model, None, None, billAmount=_usd(amount), requestCounts=_n(count))
            for (moment, model), (count, amount) in _grouped(
                buckets, point, lambda b: b.model, lambda b: b.cost
            ).items()
        ],
        "costByApiKey": [
            _row(moment, None, None, key, billAmount=_usd(amount), requestCounts=_n(count))
            for (moment, key), (count, amount) in _grouped(buckets, point, lambda b: b.key_id, lambda b: b.cost).items()
        ],
        "costByTokenType": by_type,
    }
    return {"summary": _summary(buckets), "analysis": analysis}
