"""The catalogue entry a models route names: what every face's `GET …/models/{model_id}` looks up."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.scenario.schema import ModelSpec


def named_model(request: web.Request) -> tuple[str, ModelSpec]:
    """The route's `model_id` and its catalogue entry; 404 `invalid_model` when it is not listed."""
    model_id = request.match_info["model_id"]
    spec = request.config_dict[REGISTRY].current.scenarios.catalogue.get(model_id)
    if spec is None:
        raise RequestRejected(404, "invalid_model", f"Model {model_id} is not valid")
    return model_id, spec
