"""The possible JSON values of a select-only json_schema (§4.3 step 1), in their fixed order."""

from __future__ import annotations

import itertools
from typing import Any

MAX_VALUES = 256


class NotEnumerable(ValueError):
    """A schema that select_deterministic cannot enumerate; the message says why."""


def _count(schema: Any, path: str) -> int:
    if not isinstance(schema, dict):
        raise NotEnumerable(f"{path}: expected a schema object")
    kind = schema.get("type", "object" if "properties" in schema else None)
    if kind == "boolean":
        return 2
    if kind in ("string", None) and isinstance(schema.get("enum"), list):
        if not schema["enum"] or not all(isinstance(v, str) for v in schema["enum"]):
            raise NotEnumerable(f"{path}.enum: expected a non-empty list of strings")
        return len(schema["enum"])
    if kind == "object":
        props = schema.get("properties") or {}
        if not isinstance(props, dict):
            raise NotEnumerable(f"{path}.properties: expected an object")
        total = 1
        for key, sub in props.items():
            total *= _count(sub, f"{path}.properties.{key}")
            if total > MAX_VALUES:
                raise NotEnumerable(f"{path}: has more than {MAX_VALUES} possible values")
        return total
    raise NotEnumerable(f"{path}: only objects, booleans and string enums can be enumerated")


def _values(schema: dict[str, Any]) -> list[Any]:
    kind = schema.get("type", "object" if "properties" in schema else None)
    if kind == "boolean":
        return [False, True]
    if kind in ("string", None) and "enum" in schema:
        return list(schema["enum"])
    props: dict[str, Any] = schema.get("properties") or {}
    keys = list(props)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(_values(props[k]) for k in keys))]


def enumerate_values(schema: Any, path: str = "response_format.json_schema.schema") -> list[Any]:
    """Every value of the schema (first property varying slowest); raises `NotEnumerable`."""
    if _count(schema, path) > MAX_VALUES:
        raise NotEnumerable(f"{path}: has more than {MAX_VALUES} possible values")
    return _values(schema)
