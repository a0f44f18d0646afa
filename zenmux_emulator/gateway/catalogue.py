"""Admission by model: the id must be well formed, known when the catalogue is closed, and the
prompt must fit its context window."""

from __future__ import annotations

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params
from zenmux_emulator.neutral.facts import split_model
from zenmux_emulator.rules.compiled import ScenarioSet
from zenmux_emulator.scenario.default_models import CREATED
from zenmux_emulator.scenario.schema import MODEL_ID, ModelSpec

def admit(model: str, scenarios: ScenarioSet, prompt_tokens: int) -> ModelSpec | None:
    """Check the model id and the prompt size; the catalogue entry when there is one."""
    base, _provider = split_model(model)
    if not MODEL_ID.match(base):
        raise invalid_params(f"Model {model} is not valid")
    spec = scenarios.catalogue.get(base)
    if spec is None and scenarios.catalogue_closed:
        raise invalid_params(f"Model {model} is not valid")
    if spec is not None and prompt_tokens > spec.context_length:
        raise RequestRejected(413, "invalid_params", "Prompt is too long")
    return spec


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
