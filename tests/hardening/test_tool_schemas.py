"""Issue 17, defect 2: a tool's JSON Schema that is not a valid schema is a 400 naming where, on
every face that takes tools; a valid one the value generator cannot satisfy gets the same
fallback arguments every time."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
WHERE = {"chat": "tools[0].function.parameters", "anthropic": "tools.0.input_schema",
         "responses": "tools[0].parameters", "objectiveai": "tools[0].function.parameters",
         "vertex": "tools[0].functionDeclarations[0].parametersJsonSchema"}


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize(("schema", "inside"), [
    ({"properties": True}, "properties"),
    ({"type": "object", "properties": {"a": {"type": "nonsense"}}}, "properties.a.type"),
    ({"type": "object", "required": "a"}, "required"),
    ({"type": "string", "pattern": "(unclosed"}, "pattern"),
    ({"type": "array", "minItems": -1}, "minItems"),
    ({"$schema": ["not", "a", "uri"]}, "$schema"),
], ids=["properties-true", "unknown-type", "required-string", "bad-regex", "negative-min", "schema-list"])
def test_a_malformed_schema_is_a_400_naming_where(make_server: MakeServer, wire_to: WireTo, face: Face,
                                                  schema: dict[str, Any], inside: str):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, face.with_tool(schema))
    assert status == 400, body
    message = face.envelope(status, body)["message"]
    assert "JSON Schema" in message and inside in message, message
    assert WHERE[face.name].replace("[", "").replace("]", "").replace(".", "") in \
        message.replace("[", "").replace("]", "").replace(".", ""), message


def arguments(face: Face, body: bytes) -> Any:
    """The forced call's arguments, decoded (objectiveai calls no tools: its answer is the body)."""
    data = orjson.loads(body)
    if face.name == "chat":
        return orjson.loads(data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    if face.name == "anthropic":
        return next(b["input"] for b in data["content"] if b["type"] == "tool_use")
    if face.name == "responses":
        return orjson.loads(next(i["arguments"] for i in data["output"] if i["type"] == "function_call"))
    if face.name == "vertex":
        return next(p["functionCall"]["args"] for p in data["candidates"][0]["content"]["parts"] if "functionCall" in p)
    return [choice["message"] for choice in data["choices"]]


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"s": {"type": "string", "minLength": 100_000_000}}},
    {"type": "object", "properties": {"a": {"type": "array", "minItems": 1_000_000_000}}},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}},
    {"type": "object", "allOf": [True, {"properties": {"x": {"type": "number"}}}]},
    {"type": "object", "properties": {"t": {"$ref": "#/$defs/t"}}, "$defs": {"t": {
        "type": "array", "minItems": 50, "items": {"$ref": "#/$defs/t"}}}},
    {"not": {}},
], ids=["huge-string", "huge-array", "empty-range", "boolean-part", "exploding-ref", "nothing"])
def test_a_schema_the_generator_cannot_satisfy_gets_the_same_answer_every_time(
        make_server: MakeServer, wire_to: WireTo, face: Face, schema: dict[str, Any]):
    wire = wire_to(make_server(RULES))
    first = wire.ask(face, face.with_tool(schema))
    assert first[0] == 200, first[2]
    again = wire.ask(face, face.with_tool(schema), [("X-Emulator-Session", "again")])
    assert again[0] == 200
    assert arguments(face, again[2]) == arguments(face, first[2])
