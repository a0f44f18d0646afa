"""The request body as JSON, within the size limit; anything else is a clear 400 or 413."""

from __future__ import annotations

import zlib

import orjson
from aiohttp import web

from zenmux_emulator.foundation.collector import collector_paused, hold_collector
from zenmux_emulator.foundation.errors import INVALID_PARAMS, RequestRejected, invalid_params
from zenmux_emulator.foundation.nesting import MAX_DEPTH, nesting_problem


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
    encoding = request.headers.get("Content-Encoding")
    return raw if encoding is None else inflate(raw, encoding, limit)


async def read_json(request: web.Request, limit: int) -> object:
    """The decoded body, read to its end; `limit` bounds what is read."""
    return decode(await read_body(request, limit))


async def read_body(request: web.Request, limit: int) -> bytes:
    """The body's bytes, inflated when it says it is compressed (see `inflate`)."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large(limit) from None
    except web.RequestPayloadError:
        raise unreadable(request) from None
    encoding = request.headers.get("Content-Encoding")
    return raw if encoding is None else inflate(raw, encoding, limit)


def unreadable(request: web.Request) -> RequestRejected:
    """The 400 of a body that cannot be read: the connection cut it short of its declared length."""
    return invalid_params("Request body could not be read: it ended before its declared length")


def inflate(raw: bytes, encoding: str, limit: int) -> bytes:
    """A body sent with `Content-Encoding: gzip` (or `x-gzip`) or `deflate` (zlib, or raw deflate as
    some clients send it), inflated to at most `limit` bytes: past it, a 413 (a zip bomb stops there);
    not what it claims to be, a 400; another coding, a 415. The server's own inflation is off
    (`create_app`), so every failure gets the face's envelope and none can stall a request."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return raw
    if coding not in _WBITS:
        raise RequestRejected(
            415,
            INVALID_PARAMS,
            f"Content-Encoding {encoding!r} is not supported: send the body "
            "as it is, or compressed with gzip or deflate",
        )
    for wbits in _WBITS[coding]:
        inflater = zlib.decompressobj(wbits)
        try:
            data = inflater.decompress(raw, limit + 1)
        except zlib.error:
            continue
        if len(data) > limit:
            raise _too_large(limit)
        if inflater.eof:
            return data
    raise invalid_params(f"Request body could not be decoded: it is not valid {coding} data (Content-Encoding)")


_WBITS = {
    "gzip": (16 + zlib.MAX_WBITS,),
    "x-gzip": (16 + zlib.MAX_WBITS,),
    "deflate": (zlib.MAX_WBITS, -zlib.MAX_WBITS),
}
"""zlib's window bits of each coding: gzip's header, and deflate's zlib wrapper or raw stream."""


def decode(raw: bytes) -> object:
    """The body's JSON; an empty or invalid body is a 400."""
    if not raw.strip():
        raise invalid_params("Request body is empty: expected a JSON object")
    try:
        value = orjson.loads(raw) if len(raw) < _MANY_OBJECTS_BYTES else loads_in_bulk(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid_params(f"Request body is not valid JSON: {exc}") from None
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:  # fewer openers cannot nest past it: no walk
        problem = nesting_problem(raw, value)
        if problem is not None:
            raise invalid_params(problem)
    return value


_MANY_OBJECTS_BYTES = 64 * 1024
"""A body this large may hold tens of thousands of objects: `loads_in_bulk` decodes it."""


_HELD_UNDER_BYTES = 1 << 20


def loads_in_bulk(raw: bytes) -> object:
    """`orjson.loads` with Python's cycle collector paused while it runs. Building many thousands
    of objects in one call sets off collection after collection over the growing heap (200,000
    input items of one part each: 2 s on the event loop; 0.4 s with it paused; 1 MB of arrays
    nested 60 deep: 0.2 to 0.25 s, 0.05 s paused). JSON makes no cycles, and nothing else runs
    meanwhile: orjson holds the GIL throughout. Under 1 MiB (the bodies a client sends in the
    ordinary course) the pause is held on a little (`hold_collector`): a collection just after
    would walk them all, and they are usually gone soon after."""
    if len(raw) < _HELD_UNDER_BYTES:
        hold_collector(len(raw))
    with collector_paused(freeze=False):
        return orjson.loads(raw)


def _too_large(limit: int) -> RequestRejected:
    return RequestRejected(413, "invalid_params", f"Request body is too large: the limit is {limit} bytes")


class NotYet:
    """The body is still arriving: read it with `read_body`."""


NOT_YET = NotYet()
