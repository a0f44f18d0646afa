"""The catalogue as Google's model lists: `GET v1beta/models` (ZenMux documents it; google-genai
with `vertexai=False`) and `GET v1/publishers/{provider}/models` (google-genai's `models.list()`
with `vertexai=True`), and one model by name on each. Like ZenMux's listings, no key is needed."""

from __future__ import annotations

import orjson
from aiohttp import web

from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.faces.vertex.paths import model_of
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.scenario.schema import ModelSpec

METHODS = ["generateContent", "streamGenerateContent", "countTokens"]


def google_model(model_id: str, spec: ModelSpec) -> dict[str, object]:
    """One entry, named by its ZenMux slug as ZenMux's list names it."""
    entry: dict[str, object] = {
        "name": model_id,
        "displayName": spec.display_name or model_id,
        "description": f"{spec.display_name or model_id}, served by the ZenMux emulator",
        "inputTokenLimit": spec.context_length,
        "supportedGenerationMethods": METHODS,
        "thinking": spec.reasoning,
    }
    if spec.max_output_tokens is not None:
        entry["outputTokenLimit"] = spec.max_output_tokens
    return entry


async def list_models(request: web.Request) -> web.Response:
    """Every catalogue model (on the Vertex form, the named publisher's)."""
    catalogue = request.config_dict[REGISTRY].current.scenarios.catalogue
    publisher = request.match_info.get("provider")
    models = [
        google_model(model_id, spec)
        for model_id, spec in catalogue.items()
        if publisher is None or model_id.split("/", 1)[0] == publisher
    ]
    return web.Response(body=orjson.dumps({"models": models}), content_type="application/json")


async def get_model(request: web.Request) -> web.Response:
    """One model by its path; 404 `invalid_model` when the catalogue does not list it."""
    model_id = model_of(request.match_info)
    spec = request.config_dict[REGISTRY].current.scenarios.catalogue.get(model_id)
    if spec is None:
        raise RequestRejected(404, "invalid_model", f"Model {model_id} is not valid")
    return web.Response(body=orjson.dumps(google_model(model_id, spec)), content_type="application/json")
