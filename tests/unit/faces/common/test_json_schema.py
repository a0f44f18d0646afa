"""Issue 40, item 2: a large schema's verdict is kept by its text with its descriptions blanked,
so an agent that edits a description is not checked against the meta-schema again."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.faces.common import json_schema
from zenmux_emulator.faces.common.json_schema import INLINE_WEIGHT, schema_problem, weight


def wide(properties: int, note: str) -> dict[str, Any]:
    return {
        "type": "object",
        "title": note,
        "properties": {f"p{i}": {"type": "string", "description": f"{note} {i}"} for i in range(properties)},
    }


def test_a_description_edit_reuses_the_large_schemas_verdict() -> None:
    first, edited = wide(200, "unit first"), wide(200, "unit edited")
    assert weight(json_schema.orjson.dumps(first)) > INLINE_WEIGHT
    kept = set(json_schema._PLAIN.kept)
    assert schema_problem(first) is None
    assert schema_problem(edited) is None
    assert len(set(json_schema._PLAIN.kept) - kept) == 1  # one check of the meta-schema for both


def test_a_string_where_a_schema_belongs_is_named_even_under_a_prose_name() -> None:
    schema = wide(200, "unit title")
    schema["properties"]["description"] = "not a schema"
    problem = schema_problem(schema)
    assert (
        problem is not None and "'not a schema' is not of type 'object', 'boolean' at properties.description" in problem
    )
