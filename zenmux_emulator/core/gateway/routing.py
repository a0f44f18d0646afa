"""Which model and provider serve a request: `zenmux/auto` model routing, provider order
(`provider.routing`, the `model:provider` suffix), and fallback to other providers or a model.

`provider.fallback` is read both ways ZenMux's docs describe it: `"true"` / `"false"`, a provider
name (no slash: that provider next), or a model slug (a slash, e.g. `google/gemini-2.5-flash-lite`:
that model after every provider of the requested one failed). Every attempt is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from zenmux_emulator.foundation.envelope import CATALOGUE, scripted_error
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.scenario.schema import ModelSpec, ProviderSpec
from zenmux_emulator.state.sessions import Session

AUTO = "zenmux/auto"
ROUTING_HEADER = "X-Emulator-Routing"


def no_provider() -> RequestRejected:
    return RequestRejected(502, "no_provider_available", CATALOGUE[(502, "no_provider_available")])


@dataclass(frozen=True, slots=True)
class Attempt:
    """One provider tried: its model, name, outcome and latency."""

    model: str
    provider: str
    outcome: str
    latency_ms: float

    def __str__(self) -> str:
        return f"{self.model}@{self.provider}={self.outcome}"

    def as_dict(self) -> dict[str, Any]:
        """The attempt as the journal shows it."""
        return {"model": self.model, "provider": self.provider, "outcome": self.outcome, "latency_ms": self.latency_ms}


@dataclass(slots=True)
class Route:
    """The model and provider that served, and every attempt on the way."""

    model: str
    provider: str | None = None
    attempts: Sequence[Attempt] = ()
    failure: RequestRejected | None = None
    """Set when no provider served: the answer to give (the attempts are kept for the journal)."""
    summary: str | None = None
    """The attempts as one header value, when already worked out (the common case's)."""

    delay_s: float = 0.0
    """The providers' latencies added up: how long the route took (set as the route is made)."""


def _price(spec: ModelSpec) -> float:
    return spec.pricing.prompt + spec.pricing.completion


def auto_model(config: Mapping[str, Any], catalogue: Mapping[str, ModelSpec]) -> str:
    """`zenmux/auto`: among `available_models` (default: the catalogue), by `preference`:
    `price` the cheapest, `performance` the dearest, `balanced` (default) the middle one by price,
    or a model named outright."""
    candidates = [m for m in config.get("available_models") or catalogue if m != AUTO]
    if not candidates:
        return AUTO
    preference = config.get("preference") or "balanced"
    if preference in candidates:
        return str(preference)
    ranked = sorted(candidates, key=lambda m: (_price(catalogue[m]) if m in catalogue else 0, m))
    if preference == "price":
        return ranked[0]
    if preference == "performance":
        return ranked[-1]
    return ranked[(len(ranked) - 1) // 2]


@lru_cache(maxsize=1024)
def _default_provider(name: str) -> ProviderSpec:
    """The one healthy provider of a model the catalogue declares none for (frozen, so shared)."""
    return ProviderSpec(name=name)


def _providers(model: str, catalogue: Mapping[str, ModelSpec]) -> list[ProviderSpec]:
    spec = catalogue.get(model)
    if spec is not None and spec.providers:
        return list(spec.providers)
    return [_default_provider(model.split("/", 1)[0])]


def _named(provider: ProviderSpec, name: str) -> bool:
    """`anthropic` names `anthropic` and `anthropic/anthropic_endpoint`, and the other way round."""
    return provider.name == name or provider.name.split("/", 1)[0] == name.split("/", 1)[0]


def provider_order(providers: list[ProviderSpec], routing: Mapping[str, Any], rotation: int) -> list[ProviderSpec]:
    """The providers in the order they are tried, per `provider.routing`."""
    wanted = routing.get("providers")
    if wanted:
        providers = [p for name in wanted for p in providers if _named(p, name)]
    kind = routing.get("type", "priority")
    factor = routing.get("primary_factor")
    if kind == "least_latency" or factor in ("speed", "latency", "throughput"):
        return sorted(providers, key=lambda p: p.latency_ms)
    if factor in ("cost", "price"):
        return sorted(providers, key=lambda p: p.cost)
    if kind == "round_robin" and providers:
        start = rotation % len(providers)
        return providers[start:] + providers[:start]
    return providers


@lru_cache(maxsize=1024)
def _implicit(model: str) -> tuple[str, str, tuple[Attempt, ...], str, float]:
    """A model's one implicit provider: its name, its `model@provider` key, the one attempt it
    takes and that attempt's summary (made once per model: the attempts of a route are never
    changed once made)."""
    provider = _default_provider(model.split("/", 1)[0])
    attempt = Attempt(model=model, provider=provider.name, outcome="ok", latency_ms=provider.latency_ms)
    key = f"{model}@{provider.name}"
    return provider.name, key, (attempt,), f"{key}=ok", provider.latency_ms / 1000


def route(
    model: str,
    pinned: str | None,
    options: Mapping[str, Any],
    model_routing: Mapping[str, Any],
    catalogue: Mapping[str, ModelSpec],
    session: Session,
) -> Route:
    """Try the providers in order until one serves; when none does, the route carries the failure.
    `options` is ZenMux's `provider` object, `model_routing` its `model_routing_config`."""
    if model == AUTO:
        model = auto_model(model_routing, catalogue)
    spec = catalogue.get(model)
    if pinned is None and not options and (spec is None or not spec.providers):
        # the common case, answered without building a plan: the model's one implicit provider,
        # which never fails, serves at once (what the plan below concludes, counters included)
        name, key, attempts, said, delay_s = _implicit(model)
        session.rotations[model] = session.rotations.get(model, 0) + 1
        session.provider_requests[key] = session.provider_requests.get(key, 0) + 1
        return Route(model, name, attempts, None, said, delay_s)
    # a pinned provider is the only one: its error comes back as it is (ZenMux's routing guide)
    fallback = "false" if pinned is not None else str(options.get("fallback", "true"))
    providers = _providers(model, catalogue)
    declared = model in catalogue and bool(catalogue[model].providers)
    if pinned is not None:
        # only a declared provider list can tell an unknown provider (502); otherwise the pin serves
        providers = [p for p in providers if _named(p, pinned)] if declared else [ProviderSpec(name=pinned)]
        if not providers:
            return Route(model, failure=no_provider())
    rotation = session.rotations.get(model, 0)
    session.rotations[model] = rotation + 1
    ordered = provider_order(providers, options.get("routing") or {}, rotation)
    plan: list[tuple[str, ProviderSpec]] = [(model, p) for p in ordered]
    if fallback == "false":
        plan = plan[:1]
    elif fallback not in ("true", "") and "/" not in fallback:
        plan = plan[:1] + [(model, p) for p in _providers(model, catalogue) if _named(p, fallback)]
    backup = fallback if "/" in fallback else (spec.fallback_model if spec is not None else None)
    if backup and fallback != "false" and backup != model:
        plan += [(backup, p) for p in _providers(backup, catalogue)]
    made: list[Attempt] = []
    result = Route(model, attempts=made)
    first_failure: RequestRejected | None = None
    for candidate, provider in plan:
        key = f"{candidate}@{provider.name}"
        tried = session.provider_requests.get(key, 0)
        session.provider_requests[key] = tried + 1
        failing = provider.fail is not None and (provider.fail_first is None or tried < provider.fail_first)
        if not failing:
            made.append(Attempt(model=candidate, provider=provider.name, outcome="ok", latency_ms=provider.latency_ms))
            result.model, result.provider = candidate, provider.name
            result.delay_s = sum(a.latency_ms for a in made) / 1000
            return result
        assert provider.fail is not None
        error = scripted_error(provider.fail.status, provider.fail.type, provider.fail.message, provider.fail.headers)
        first_failure = first_failure or error
        made.append(
            Attempt(
                model=candidate,
                provider=provider.name,
                outcome=f"{error.status} {error.type}",
                latency_ms=provider.latency_ms,
            )
        )
    result.delay_s = sum(a.latency_ms for a in made) / 1000
    failure = first_failure if fallback == "false" and first_failure is not None else no_provider()
    result.failure = failure.with_headers({ROUTING_HEADER: summary(result)})
    return result


def summary(route_: Route) -> str:
    """The attempts as one header value, e.g. `anthropic/claude-sonnet-4.5@anthropic=503 provider_error; …`."""
    if route_.summary is not None:
        return route_.summary
    return "; ".join(str(a) for a in route_.attempts)
