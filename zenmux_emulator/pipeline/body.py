"""The request body as JSON, within the size limit; anything else is a clear 400 or 413."""

from __future__ import annotations

import orjson
from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params
from zenmux_emulator.foundation.nesting import nesting_problem


def arrived_json(request: web.Request, limit: int) -> object:
    """The decoded body when all of it came with the headers (the usual case: no await needed),
    else `NOT_YET`; `limit` is the app's `client_max_size`."""
    content = request.content
    if not content.is_eof():
        return NOT_YET
    raw = content.read_nowait()
    if len(raw) > limit:
        raise _too_large(limit)
    return decode(raw)


async def read_json(request: web.Request, limit: int) -> object:
    """The decoded body, read to its end; `limit` bounds what is read."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large(limit) from None
    return decode(raw)


def decode(raw: bytes) -> object:
    """The body's JSON; an empty or invalid body is a 400."""
    if not raw.strip():
        raise invalid_params("Request body is empty: expected a JSON object")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid_params(f"Request body is not valid JSON: {exc}") from None
    problem = nesting_problem(raw, value)
    if problem is not None:
        raise invalid_params(problem)
    return value


def _too_large(limit: int) -> RequestRejected:
    return RequestRejected(413, "invalid_params", f"Request body is too large: the limit is {limit} bytes")


class _NotYet:
    """The body is still arriving: read it with `read_json`."""


NOT_YET = _NotYet()
