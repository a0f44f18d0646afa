"""`GET /api/anthropic/v1/models` (and one model by id) from the loaded catalogue, in ZenMux's
shape for this face: `{data: [{id, type: "model", display_name, created_at: "YYYY-MM-DD", …}],
has_more, first_id, last_id}`, paged with `limit`, `after_id` and `before_id` as Anthropic's is."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
from aiohttp import web

from zenmux_emulator.core.gateway.catalogue import model_object
from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.faces.common.catalogue import named_model
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.scenario.schema import ModelSpec

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000


def anthropic_model(model_id: str, spec: ModelSpec) -> dict[str, object]:
    """One entry: the chat listing's facts under Anthropic's names."""
    chat = model_object(model_id, spec)
    created = datetime.fromtimestamp(int(str(chat["created"])), tz=UTC).strftime("%Y-%m-%d")
    return {
        "id": model_id,
        "type": "model",
        "display_name": chat["display_name"],
        "created_at": created,
        "input_modalities": chat["input_modalities"],
        "output_modalities": chat["output_modalities"],
        "capabilities": chat["capabilities"],
        "context_length": chat["context_length"],
        "pricings": chat["pricings"],
    }


def _limit(value: str | None) -> int:
    if value is None:
        return DEFAULT_LIMIT
    if not value.isdigit() or not 1 <= int(value) <= MAX_LIMIT:
        raise invalid_params(f"limit: Input should be an integer from 1 to {MAX_LIMIT}")
    return int(value)


async def list_models(request: web.Request) -> web.Response:
    """A page of the catalogue (ZenMux's listings need no API key)."""
    ids = list(request.config_dict[REGISTRY].current.scenarios.listing())
    limit = _limit(request.query.get("limit"))
    after, before = request.query.get("after_id"), request.query.get("before_id")
    if before is not None:
        end = ids.index(before) if before in ids else len(ids)
        page = ids[max(end - limit, 0) : end]
        more = end - limit > 0
    else:
        start = ids.index(after) + 1 if after in ids else 0
        page = ids[start : start + limit]
        more = start + limit < len(ids)
    catalogue = request.config_dict[REGISTRY].current.scenarios.catalogue
    data = [anthropic_model(model_id, catalogue[model_id]) for model_id in page]
    body = {
        "data": data,
        "has_more": more,
        "first_id": page[0] if page else None,
        "last_id": page[-1] if page else None,
    }
    return web.Response(body=orjson.dumps(body), content_type="application/json")


async def get_model(request: web.Request) -> web.Response:
    """One model by its `vendor/model` id; 404 `invalid_model` when it is not in the catalogue."""
    return web.Response(body=orjson.dumps(anthropic_model(*named_model(request))), content_type="application/json")
