"""Structured output: whether a scripted reply's content fits the format the request asks for.

An unscripted reply is made from the request's schema (see `schema_values`), so it always fits;
a scripted one is sent as written, with a warning when it is not JSON or breaks the schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

_MAX_REASON = 200


def misfit(content: str, schema: Mapping[str, Any]) -> str | None:
    """Why the content does not fit the schema (not JSON, or the first schema violation), or None."""
    try:
        value = orjson.loads(content)
    except orjson.JSONDecodeError:
        return "it is not JSON"
    from jsonschema import validators  # imported on the first scripted structured reply only

    try:
        validator = validators.validator_for(schema)(schema)
        error = next(iter(validator.iter_errors(value)), None)
    except Exception as exc:  # noqa: BLE001  # the request's schema is at fault (unknown type, bad $ref, …): say so, never a 500
        return f"the schema could not be checked ({type(exc).__name__})"
    if error is None:
        return None
    where = "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
    reason = f"{where or 'the value'}: {error.message}"
    return reason if len(reason) <= _MAX_REASON else reason[: _MAX_REASON - 3] + "..."
