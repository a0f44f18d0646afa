"""The catalogue as Google's model lists: `GET v1beta/models` (ZenMux documents it; google-genai
with `vertexai=False`) and `GET v1/publishers/{provider}/models` (google-genai's `models.list()`
with `vertexai=True`), and one model by name on each. Like ZenMux's listings, no key is needed."""

from __future__ import annotations

import base64
from collections.abc import Mapping

import orjson
from aiohttp import web

from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.faces.vertex.paths import model_of
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params
from zenmux_emulator.scenario.schema import ModelSpec

METHODS = ["generateContent", "streamGenerateContent", "countTokens"]
TOKEN_PREFIX = "models:"


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


MAX_PAGE_SIZE = 1000
"""Google's cap on `pageSize` (a larger one is taken as this)."""


def page_size(query: Mapping[str, str]) -> int | None:
    """`pageSize`, None when not given (every model in one page, as ZenMux's list answers)."""
    given = query.get("pageSize", query.get("page_size"))
    if given is None:
        return None
    if not given.isdigit():
        raise invalid_params(f"pageSize: must be a non-negative integer, got {given!r}")
    return min(int(given), MAX_PAGE_SIZE) or None


def page_start(query: Mapping[str, str]) -> int:
    """Where `pageToken` (a previous page's `nextPageToken`) starts the page."""
    token = query.get("pageToken", query.get("page_token")) or ""
    if not token:
        return 0
    try:
        start = int(base64.urlsafe_b64decode(token.encode()).decode().removeprefix(TOKEN_PREFIX))
    except (ValueError, UnicodeDecodeError):
        start = -1
    if start < 0:
        raise invalid_params(f"pageToken: {token!r} is not a page token this list gave")
    return start


def page_token(start: int) -> str:
    return base64.urlsafe_b64encode(f"{TOKEN_PREFIX}{start}".encode()).decode()


async def list_models(request: web.Request) -> web.Response:
    """Every catalogue model (on the Vertex form, the named publisher's), in pages of `pageSize`
    with a `nextPageToken` when it is given."""
    catalogue = request.config_dict[REGISTRY].current.scenarios.catalogue
    publisher = request.match_info.get("provider")
    models = [
        google_model(model_id, spec)
        for model_id, spec in catalogue.items()
        if publisher is None or model_id.split("/", 1)[0] == publisher
    ]
    size, start = page_size(request.query), page_start(request.query)
    end = len(models) if size is None else start + size
    body: dict[str, object] = {"models": models[start:end]}
    if end < len(models):
        body["nextPageToken"] = page_token(end)
    return web.Response(body=orjson.dumps(body), content_type="application/json")


async def get_model(request: web.Request) -> web.Response:
    """One model by its path; 404 `invalid_model` when the catalogue does not list it."""
    model_id = model_of(request.match_info)
    spec = request.config_dict[REGISTRY].current.scenarios.catalogue.get(model_id)
    if spec is None:
        raise RequestRejected(404, "invalid_model", f"Model {model_id} is not valid")
    return web.Response(body=orjson.dumps(google_model(model_id, spec)), content_type="application/json")
