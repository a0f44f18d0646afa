"""What every control handler shares: JSON answers, strict query strings and JSON bodies, and the
`invalid_scenario` envelope that lists a scenario's problems."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.body import read_body
from zenmux_emulator.foundation.errors import (
    RequestRejected,
    ScenarioError,
    invalid_params,
)
from zenmux_emulator.foundation.nesting import nesting_problem

TRUE, FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def json_response(data: object, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(data), status=status, content_type="application/json")


def query(request: web.Request, allowed: Collection[str]) -> Mapping[str, str]:
    """The query string, refusing parameters the route does not know (a typo would filter nothing)."""
    for name in request.query:
        if name not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise invalid_params(f"Parameter {name} is not supported here (supported: {known})")
    return request.query


def flag(params: Mapping[str, str], name: str) -> bool:
    value = params.get(name)
    if value is None or value.lower() in FALSE:
        return False
    if value.lower() in TRUE:
        return True
    raise invalid_params(f"Parameter {name} is not valid: expected true or false, got {value!r}")


MAX_COUNT = 10**18 - 1
"""The largest `limit`, `before` or `after` a query string may give (the OpenAPI document's `maximum`)."""


def count(params: Mapping[str, str], name: str) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or len(value.lstrip("0")) > len(str(MAX_COUNT)):
        raise invalid_params(
            f"Parameter {name} is not valid: expected a whole number from 0 to {MAX_COUNT}, got {value!r}"
        )
    return int(value)


JSON_TYPE = "application/json"


def json_content_type(request: web.Request, raw: bytes) -> None:
    """A JSON route's body must say it is JSON: a page on another site can post a form
    (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`) without asking, never
    `application/json`. A request without a body and without a `Content-Type` is fine."""
    if (raw.strip() or "Content-Type" in request.headers) and request.content_type != JSON_TYPE:
        raise RequestRejected(
            415, "invalid_params", f"Content-Type must be {JSON_TYPE}, got {request.content_type or 'none'}"
        )


def duplicate_key(raw: bytes) -> str | None:
    """The first key an object of the JSON text gives twice (JSON parsers keep the last one
    silently, so a body could say one thing to a reader and another to the emulator), or None."""
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(items)
        if len(made) != len(items) and not found:
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    found.append(key)
                    break
                seen.add(key)
        return made

    try:
        json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError):  # orjson read it: nothing the stdlib refuses matters here
        return None
    return found[0] if found else None


async def json_object(request: web.Request, *, required: bool) -> dict[str, Any] | None:
    """The body as a JSON object, sent as `application/json`; None for an empty body when it is optional."""
    raw = await read_body(request, request.client_max_size)
    json_content_type(request, raw)
    if not raw.strip():
        if required:
            raise invalid_params("Request body is empty: expected a JSON object")
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid_params(f"Request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise invalid_params(f"Request body must be a JSON object, got {type(data).__name__}")
    problem = nesting_problem(raw, data)
    if problem is not None:
        raise invalid_params(problem)
    duplicate = duplicate_key(raw)
    if duplicate is not None:
        raise invalid_params(f"Request body is not valid: key {duplicate!r} is given twice in one object")
    return data


def only_keys(body: Mapping[str, Any], allowed: Collection[str]) -> None:
    for key in body:
        if key not in allowed:
            raise invalid_params(f"Parameter {key} is not supported here (supported: {', '.join(sorted(allowed))})")


def not_found(type: str, message: str) -> RequestRejected:
    return RequestRejected(404, type, message)


def problems_response(error: ScenarioError, message: str) -> web.Response:
    """400 `invalid_scenario`: ZenMux's envelope plus every problem, located."""
    problems = [
        {"file": p.file, "line": p.line, "column": p.column, "path": p.path, "reason": p.reason} for p in error.problems
    ]
    detail = "; ".join(str(p) for p in error.problems)
    body = {
        "error": {"code": "400", "type": "invalid_scenario", "message": f"{message}: {detail}", "problems": problems}
    }
    return json_response(body, status=400)
