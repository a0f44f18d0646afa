"""Step 1: the request body as JSON, within the size limit; anything else is a clear 400 or 413."""

from __future__ import annotations

import orjson
from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params


async def read_json(request: web.Request, limit: int) -> object:
    """The decoded body; `limit` is the app's `client_max_size`, which bounds what is read."""
    content = request.content
    if content.is_eof():  # the usual case: the whole body came with the headers, take it as it is
        raw = content.read_nowait()
        too_large = len(raw) > limit
    else:
        try:
            raw = await request.read()
            too_large = False
        except web.HTTPRequestEntityTooLarge:
            too_large = True
    if too_large:
        raise RequestRejected(413, "invalid_params", f"Request body is too large: the limit is {limit} bytes")
    if not raw.strip():
        raise invalid_params("Request body is empty: expected a JSON object")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid_params(f"Request body is not valid JSON: {exc}") from None
