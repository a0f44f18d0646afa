"""The request body as JSON, within the size limit; anything else is a clear 400 or 413."""

from __future__ import annotations

import orjson
from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params
from zenmux_emulator.foundation.nesting import nesting_problem


def arrived_body(request: web.Request, limit: int) -> bytes | NotYet:
    """The body's bytes when all of it came with the headers (the usual case: no await needed),
    else `NOT_YET` (then `read_body`); `limit` is the app's `client_max_size`."""
    content = request.content
    if not content.is_eof():
        return NOT_YET
    try:
        raw = content.read_nowait()
    except web.RequestPayloadError:
        raise unreadable(request) from None
    if len(raw) > limit:
        raise _too_large(limit)
    return raw


async def read_json(request: web.Request, limit: int) -> object:
    """The decoded body, read to its end; `limit` bounds what is read."""
    return decode(await read_body(request, limit))


async def read_body(request: web.Request, limit: int) -> bytes:
    """The body's bytes, inflated when it says it is compressed (`Content-Encoding: gzip`, `deflate`,
    `br`): aiohttp inflates as it reads, so a body inflating past `limit` is a 413 once past it."""
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large(limit) from None
    except web.RequestPayloadError:
        raise unreadable(request) from None


def unreadable(request: web.Request) -> RequestRejected:
    """The 400 of a body that cannot be read: one that says it is compressed and is not, or a cut chunk."""
    encoding = request.headers.get("Content-Encoding")
    if encoding:
        return invalid_params(f"Request body could not be decoded: it is not valid {encoding} (Content-Encoding)")
    return invalid_params("Request body could not be read: it ended before its declared length")


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


class NotYet:
    """The body is still arriving: read it with `read_body`."""


NOT_YET = NotYet()
