"""Tool `parameters` (and structured-output schemas) checked against JSON Schema's own meta-schema
by jsonschema, at parse time on every face that takes them: a schema that is not one (say
`{"properties": true}`) is a 400 naming where, before anything tries to make values from it."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import AfterValidator

from zenmux_emulator.faces.common.validation import not_valid

if TYPE_CHECKING:
    from jsonschema import SchemaError

CHECKED_SCHEMAS = 1024
"""Distinct schemas whose verdict is kept: agents send the same tools on every turn."""


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (its path inside the schema and the reason), or None.
    Checked against the draft its `$schema` names, 2020-12 when it names none (or one not known)."""
    return _problem(orjson.dumps(schema))


@lru_cache(maxsize=CHECKED_SCHEMAS)
def _problem(key: bytes) -> str | None:
    """The verdict on one schema, by its JSON (jsonschema imported by the first request with a schema)."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match

    schema = orjson.loads(key)
    declared = schema.get("$schema")
    if declared is not None and not isinstance(declared, str):
        return f"not a valid JSON Schema: $schema must be a string (a meta-schema URI), got {declared!r}"
    checker = validators.validator_for(schema, default=Draft202012Validator)
    validator = checker(checker.META_SCHEMA, format_checker=checker.FORMAT_CHECKER)
    error: SchemaError | None = best_match(validator.iter_errors(schema))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"not a valid JSON Schema: {error.message}" + (f" at {where}" if where else "")


def _checked(schema: dict[str, Any]) -> dict[str, Any]:
    problem = schema_problem(schema)
    if problem is not None:
        raise not_valid(problem)
    return schema


JsonSchema = Annotated[dict[str, Any], AfterValidator(_checked)]
"""A JSON object that is a valid JSON Schema (pydantic's error names the field; the detail, where inside)."""
