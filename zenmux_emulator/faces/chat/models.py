"""`GET /api/v1/models` (and one model by id) from the loaded catalogue, in ZenMux's shape."""

from __future__ import annotations

import orjson
from aiohttp import web

from zenmux_emulator.core.gateway.catalogue import model_object
from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.faces.common.catalogue import named_model


async def list_models(request: web.Request) -> web.Response:
    """Every catalogue model; like ZenMux's, this listing needs no API key."""
    models = request.config_dict[REGISTRY].current.scenarios.listing()
    data = [model_object(model_id, spec) for model_id, spec in models.items()]
    return web.Response(body=orjson.dumps({"object": "list", "data": data}), content_type="application/json")


async def get_model(request: web.Request) -> web.Response:
    """One model by its `vendor/model` id; 404 `invalid_model` when it is not in the catalogue."""
    return web.Response(body=orjson.dumps(model_object(*named_model(request))), content_type="application/json")
