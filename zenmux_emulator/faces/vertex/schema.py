"""Google's schemas read as JSON Schema, as leniently as Google's API reads them.

`responseSchema` and a declaration's `parameters` are Google's OpenAPI subset (`type: OBJECT`,
`nullable`, `propertyOrdering`); google-genai sends them with the proto's snake_case field names
(`any_of`, `property_ordering`, `max_items`, …), Google's JSON parser taking either spelling.
`responseJsonSchema` is JSON Schema, and Google takes the proto's upper-case types there too
(Gemini CLI's model router writes `"type": "OBJECT"`). One reading serves all three: known field
names in camelCase, types in lower case, `nullable` as a `null` type, and `propertyOrdering` applied
to `properties` (the order the reply's keys come in).
"""

from __future__ import annotations

from typing import Any

JSON_TYPES = {
    "STRING": "string",
    "NUMBER": "number",
    "INTEGER": "integer",
    "BOOLEAN": "boolean",
    "ARRAY": "array",
    "OBJECT": "object",
    "NULL": "null",
}
UNSPECIFIED = "TYPE_UNSPECIFIED"
KEYWORDS = {
    "any_of": "anyOf",
    "one_of": "oneOf",
    "all_of": "allOf",
    "property_ordering": "propertyOrdering",
    "max_items": "maxItems",
    "min_items": "minItems",
    "max_length": "maxLength",
    "min_length": "minLength",
    "max_properties": "maxProperties",
    "min_properties": "minProperties",
    "additional_properties": "additionalProperties",
    "prefix_items": "prefixItems",
    "exclusive_minimum": "exclusiveMinimum",
    "exclusive_maximum": "exclusiveMaximum",
    "defs": "$defs",
    "ref": "$ref",
}
"""Google's Schema fields by their proto names, and the JSON Schema keyword each one is."""
NAMED = frozenset({"properties", "$defs", "definitions", "patternProperties"})
"""Keywords whose value maps names (not keywords) to schemas."""
VALUES = frozenset({"enum", "const", "required", "propertyOrdering", "example", "examples", "default"})
"""Keywords whose value is data, never a schema."""


def json_schema(schema: Any) -> Any:
    """`schema` (Google's or JSON Schema, either spelling) as JSON Schema."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        name = KEYWORDS.get(str(key), str(key))
        if name == "nullable":
            continue
        if name in NAMED and isinstance(value, dict):
            out[name] = {field: json_schema(sub) for field, sub in value.items()}
        elif name in VALUES:
            out[name] = value
        else:
            out[name] = json_schema(value)
    _typed(out, schema.get("nullable") is True)
    _ordered(out)
    if isinstance(out.get("$ref"), str):
        out["$ref"] = out["$ref"].replace("#/defs/", "#/$defs/")
    return out


def _typed(out: dict[str, Any], nullable: bool) -> None:
    """Types in JSON Schema's lower case (a list of them too), `null` added when nullable."""
    kind = out.get("type")
    if isinstance(kind, str):
        if kind.upper() == UNSPECIFIED:
            del out["type"]
            return
        out["type"] = JSON_TYPES.get(kind.upper(), kind)
    elif isinstance(kind, list):
        out["type"] = [JSON_TYPES.get(k.upper(), k) if isinstance(k, str) else k for k in kind]
    if nullable and "type" in out:
        kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = kinds if "null" in kinds else [*kinds, "null"]


def _ordered(out: dict[str, Any]) -> None:
    """`properties` in `propertyOrdering`'s order, the ones it leaves out after."""
    order, properties = out.get("propertyOrdering"), out.get("properties")
    if not isinstance(order, list) or not isinstance(properties, dict):
        return
    first = [name for name in order if isinstance(name, str) and name in properties]
    out["properties"] = {name: properties[name] for name in [*first, *properties]}
