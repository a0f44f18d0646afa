"""Admission by model: the id must be well formed, known when the catalogue is closed, and the
prompt must fit its context window."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from zenmux_emulator.foundation.errors import invalid_params, too_large
from zenmux_emulator.scenario.default_models import CREATED
from zenmux_emulator.scenario.schema import MODEL_ID, ModelSpec

QUERY_MODEL = re.compile(r"objectiveai/[0-9A-Za-z]{22}\Z")
"""An ObjectiveAI Query Model as the core sees it (`objectiveai/<Query Model id>`): not a ZenMux
catalogue id, so a closed catalogue does not refuse it (its upstream LLMs are OpenRouter slugs,
priced from the catalogue when listed there)."""


@lru_cache(maxsize=4096)
def _well_formed(model: str) -> bool:
    """Whether a model id has ZenMux's `vendor/model` form (checked once per id)."""
    return MODEL_ID.match(model) is not None


def admit(requested: str, base: str, catalogue: Mapping[str, ModelSpec], closed: bool,
          prompt_tokens: int) -> ModelSpec | None:
    """Check the model id (`requested` as sent, `base` without its `:provider`) and the prompt
    size; the catalogue entry when there is one."""
    if not _well_formed(base):
        raise invalid_params(f"Model {requested} is not valid")
    spec = catalogue.get(base)
    if spec is None and closed and not QUERY_MODEL.match(base):
        raise invalid_params(f"Model {requested} is not valid")
    if spec is not None and prompt_tokens > spec.context_length:
        raise too_large("Prompt is too long")
    return spec


def admit_candidates(model_routing: Mapping[str, Any], catalogue: Mapping[str, ModelSpec], closed: bool) -> None:
    """`zenmux/auto` serves only models a request could name itself: each of `available_models`
    must be admitted, or the request answers 400 naming it (`preference` picks among them)."""
    models = model_routing.get("available_models") or ()
    for i, model in enumerate(models):
        if not isinstance(model, str) or not _well_formed(model) or (closed and model not in catalogue):
            raise invalid_params(f"Parameter model_routing_config.available_models[{i}] is not valid: "
                                 f"model {model} is not valid")


def model_object(model_id: str, spec: ModelSpec) -> dict[str, object]:
    """A `GET /api/v1/models` entry in ZenMux's shape."""
    vendor = model_id.split("/", 1)[0]
    pricings: dict[str, list[dict[str, object]]] = {}
    for name, value in spec.pricing.model_dump(exclude_none=True).items():
        pricings[name] = [{"value": value, "unit": "perMTokens", "currency": "USD"}]
    return {
        "id": model_id,
        "object": "model",
        "display_name": spec.display_name or model_id,
        "created": spec.created if spec.created is not None else CREATED,
        "owned_by": spec.owned_by or vendor,
        "input_modalities": list(spec.input_modalities),
        "output_modalities": list(spec.output_modalities),
        "capabilities": {"reasoning": spec.reasoning},
        "context_length": spec.context_length,
        "pricings": pricings,
    }
