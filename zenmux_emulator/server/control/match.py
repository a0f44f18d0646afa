"""`POST /_emulator/match`: would this request match? A pasted body on a face's path, answered
with the rule that would answer it or its nearest rules, without sending it (nothing is counted,
journaled or used up)."""

from __future__ import annotations

from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from zenmux_emulator.core.explain import Probe, endpoint_at, explain
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.server.control.wire import json_object, json_response, only_keys, query

DEFAULT_SESSION = "inspector"
"""The session a probe reads sequence positions from when it names none (and sends no session header)."""


def _text_map(value: object, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise invalid_params(f"Parameter {name} is not valid: expected an object of strings")
    return value


async def would_match(request: web.Request) -> web.Response:
    """Body `{"path", "body", "headers"?, "session"?}`; the answer names the face, whether it
    accepts the body (else its error), the rule and reply index that would answer, or the nearest
    rules with each condition they missed (the journal's near misses for the same request)."""
    query(request, ())
    given = await json_object(request, required=True) or {}
    only_keys(given, {"path", "body", "headers", "session"})
    path, session = given.get("path"), given.get("session")
    if not isinstance(path, str):
        raise invalid_params("Parameter path is required: the face's path, e.g. /api/v1/chat/completions")
    if "body" not in given:
        raise invalid_params("Parameter body is required: the request's JSON body")
    if session is not None and not isinstance(session, str):
        raise invalid_params(f"Parameter session is not valid: expected a string, got {type(session).__name__}")
    headers = CIMultiDict(_text_map(given.get("headers"), "headers"))
    if not path.startswith("/") or path.startswith("//"):
        raise invalid_params(
            f"Parameter path is not valid: expected a path such as /api/v1/chat/completions, got {path!r}"
        )
    url = URL(path)
    root = request.match_info.apps[0] if request.match_info.apps else request.app
    found = endpoint_at(root, url.path)
    if found is None:
        raise invalid_params(f"Parameter path is not valid: no face answers POST {url.path}")
    endpoint, params = found
    name = session or headers.get("X-Emulator-Session") or DEFAULT_SESSION
    probe = Probe(endpoint, given["body"], headers, params, url, name[:128])
    return json_response(await explain(probe))
