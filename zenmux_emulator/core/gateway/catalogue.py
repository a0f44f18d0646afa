"""Admission by model: the id must be well formed, known when the catalogue is closed, and the
prompt must fit its context window."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from zenmux_emulator.core.gateway.routing import AUTO
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params, too_large
from zenmux_emulator.scenario.default_models import SNAPSHOT, Catalogue, created_of
from zenmux_emulator.scenario.schema import MODEL_ID, ModelSpec, PriceTier, Pricing

PRICE_ITEMS = ("prompt", "completion", "input_cache_read", "input_cache_write", "internal_reasoning")
"""The pricing items a catalogue entry may carry, in listing order."""

QUERY_MODEL = re.compile(r"objectiveai/[0-9A-Za-z]{22}\Z")
"""An ObjectiveAI Query Model as the core sees it (`objectiveai/<Query Model id>`): not a ZenMux
catalogue id, so a closed catalogue does not refuse it (its upstream LLMs are OpenRouter slugs,
priced from the catalogue when listed there)."""


PACKAGED_ORIGIN = f"ZenMux's models as of {SNAPSHOT.isoformat()}"


class ServedModels(dict[str, ModelSpec]):
    """The models a scenario set serves, by id, with the words that name the catalogue they come
    from (for the unknown-model hint): the packaged snapshot's day, or `--catalogue FILE`'s file and day."""

    origin = PACKAGED_ORIGIN

    @classmethod
    def of(cls, models: Mapping[str, ModelSpec], catalogue: Catalogue | None) -> ServedModels:
        served = cls(models)
        if catalogue is not None:
            served.origin = f"ZenMux's models as of {catalogue.snapshot.isoformat()}" + (
                f", from the catalogue file {catalogue.path}" if catalogue.path else ""
            )
        return served


@lru_cache(maxsize=4096)
def _well_formed(model: str) -> bool:
    """Whether a model id has ZenMux's `vendor/model` form (checked once per id)."""
    return MODEL_ID.match(model) is not None


def admit_model(
    requested: str, base: str, catalogue: Mapping[str, ModelSpec], closed: bool, prompt_tokens: int
) -> ModelSpec | None:
    """Check the model id (`requested` as sent, `base` without its `:provider`) and the prompt
    size; the catalogue entry when there is one."""
    if not _well_formed(base):
        raise invalid_params(f"Model {requested} is not valid")
    spec = catalogue.get(base)
    if spec is None and closed and base != AUTO and not QUERY_MODEL.match(base):
        raise unknown_model(requested, base, catalogue.origin if isinstance(catalogue, ServedModels) else None)
    if spec is not None and prompt_tokens > spec.context_length:
        raise too_large("Prompt is too long")
    return spec


def unknown_model(requested: str, base: str, origin: str | None = None) -> RequestRejected:
    """ZenMux's exact 400 for a model it does not list, and the emulator's own hint (in
    X-Emulator-Warnings) on what to do when ZenMux lists it since the catalogue's snapshot (the
    one served: `origin`, the packaged one's when not given)."""
    hint = (
        f"model {base} is not in the emulator's catalogue ({origin or PACKAGED_ORIGIN} and "
        "the scenario files' models:); if ZenMux lists it now, declare it under models: in a scenario file, "
        "open the catalogue with settings: {catalogue: open}, or serve a fresh one (zenmux-emulator catalogue pull "
        "--out FILE, then serve --catalogue FILE; the packaged one is refreshed with tools/build_catalogue.py)"
    )
    return RequestRejected(400, "invalid_params", f"Model {requested} is not valid", {"X-Emulator-Warnings": hint})


def admit_candidates(model_routing: Mapping[str, Any], catalogue: Mapping[str, ModelSpec], closed: bool) -> None:
    """`zenmux/auto` serves only models a request could name itself: each of `available_models`
    must be admitted, or the request answers 400 naming it (`preference` picks among them)."""
    models = model_routing.get("available_models") or ()
    for i, model in enumerate(models):
        if not isinstance(model, str) or not _well_formed(model) or (closed and model not in catalogue):
            raise invalid_params(
                f"Parameter model_routing_config.available_models[{i}] is not valid: model {model} is not valid"
            )


def model_object(model_id: str, spec: ModelSpec) -> dict[str, object]:
    """A `GET /api/v1/models` entry in ZenMux's shape."""
    vendor = model_id.split("/", 1)[0]
    return {
        "id": model_id,
        "object": "model",
        "display_name": spec.display_name or model_id,
        "created": created_of(spec),
        "owned_by": spec.owned_by or vendor,
        "input_modalities": list(spec.input_modalities),
        "output_modalities": list(spec.output_modalities),
        "capabilities": {"reasoning": spec.reasoning},
        "context_length": spec.context_length,
        "pricings": pricings(spec.pricing),
    }


def _k(tokens: int) -> float | int:
    """Tokens in kTokens, whole when they divide."""
    return tokens // 1000 if tokens % 1000 == 0 else tokens / 1000


def pricings(pricing: Pricing) -> dict[str, list[dict[str, object]]]:
    """ZenMux's `pricings`: one price per item, or one per prompt-size tier with its `conditions`
    (`prompt_tokens` in kTokens, `gte` inclusive, `lt` exclusive)."""
    tiers = sorted(pricing.tiers, key=lambda t: t.from_prompt_tokens)
    levels: list[Pricing | PriceTier] = [pricing, *tiers]
    bounds = [0, *(t.from_prompt_tokens for t in tiers)]
    out: dict[str, list[dict[str, object]]] = {}
    for name in PRICE_ITEMS:
        for i, level in enumerate(levels):
            value = getattr(level, name, None)
            if value is None:
                continue
            item: dict[str, object] = {"value": value, "unit": "perMTokens", "currency": "USD"}
            if len(levels) > 1:
                window: dict[str, object] = {"unit": "kTokens", "gte": _k(bounds[i])}
                if i + 1 < len(levels):
                    window["lt"] = _k(bounds[i + 1])
                item["conditions"] = {"prompt_tokens": window}
            out.setdefault(name, []).append(item)
    for name, prices in pricing.units.items():  # media: per count or per second
        for price in prices:
            unit: dict[str, object] = {"value": price.value, "unit": price.unit, "currency": "USD"}
            if price.when:
                unit["conditions"] = dict(price.when)
            out.setdefault(name, []).append(unit)
    return out
