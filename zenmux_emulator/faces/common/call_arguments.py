"""A drafted tool call's arguments as the object the faces whose calls carry one need (Anthropic's
`input`, Gemini's `args`): chat's JSON text parsed, a custom tool's text as `{"input": …}`."""

from __future__ import annotations

from typing import Any

import orjson


def call_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """The arguments object: unparseable text as `{"arguments": text}`, a non-object as `{"value": …}`."""
    if call["type"] == "custom":
        return {"input": call["custom"]["input"]}
    try:
        value = orjson.loads(call["function"]["arguments"] or "{}")
    except orjson.JSONDecodeError:
        return {"arguments": call["function"]["arguments"]}
    return value if isinstance(value, dict) else {"value": value}
