"""Issue 17, defect 2: a tool's JSON Schema that is not a valid schema is a 400 naming where, on
every face that takes tools. Issue 31, item 1: a valid one the value generator cannot satisfy
(within its budget, or at all) is a 400 naming the schema path, on every face that makes values
from a schema; a `pattern` is followed."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, structured_text

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
WHERE = {
    "chat": "tools[0].function.parameters",
    "anthropic": "tools.0.input_schema",
    "responses": "tools[0].parameters",
    "objectiveai": "tools[0].function.parameters",
    "vertex": "tools[0].functionDeclarations[0].parametersJsonSchema",
    "interactions": "tools[0].parameters",
}


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize(
    ("schema", "inside"),
    [
        ({"properties": True}, "properties"),
        ({"type": "object", "properties": {"a": {"type": "nonsense"}}}, "properties.a.type"),
        ({"type": "object", "required": "a"}, "required"),
        ({"type": "string", "pattern": "(unclosed"}, "pattern"),
        ({"type": "array", "minItems": -1}, "minItems"),
        ({"$schema": ["not", "a", "uri"]}, "$schema"),
    ],
    ids=["properties-true", "unknown-type", "required-string", "bad-regex", "negative-min", "schema-list"],
)
def test_a_malformed_schema_is_a_400_naming_where(
    make_server: MakeServer, wire_to: WireTo, face: Face, schema: dict[str, Any], inside: str
):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, face.with_tool(schema))
    assert status == 400, body
    message = face.envelope(status, body)["message"]
    assert "JSON Schema" in message and inside in message, message
    assert WHERE[face.name].replace("[", "").replace("]", "").replace(".", "") in message.replace("[", "").replace(
        "]", ""
    ).replace(".", ""), message


UNSATISFIABLE = [
    ({"type": "object", "properties": {"s": {"type": "string", "minLength": 100_000_000}}}, "#/properties/s"),
    ({"type": "object", "properties": {"a": {"type": "array", "minItems": 1_000_000_000}}}, "#/properties/a"),
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}}, "#/properties/n"),
    (
        {
            "type": "object",
            "properties": {"t": {"$ref": "#/$defs/t"}},
            "$defs": {"t": {"type": "array", "minItems": 50, "items": {"$ref": "#/$defs/t"}}},
        },
        "#/properties/t/items",
    ),
    (
        {"type": "object", "properties": {"p": {"type": "string", "pattern": "^[0-9]+$", "maxLength": 0}}},
        "#/properties/p/pattern",
    ),
    ({"not": {}}, "#/not"),
]
UNSATISFIABLE_IDS = ["huge-string", "huge-array", "empty-range", "exploding-ref", "pattern-vs-length", "nothing"]


@pytest.mark.parametrize("face", FACES[:3], ids=FACE_IDS[:3])
@pytest.mark.parametrize(("schema", "path"), UNSATISFIABLE, ids=UNSATISFIABLE_IDS)
def test_a_tool_schema_the_generator_cannot_satisfy_is_a_400_naming_its_path(
    make_server: MakeServer, wire_to: WireTo, face: Face, schema: dict[str, Any], path: str
):
    """Issue 31, item 1: no `{}` for what cannot be made, but the face's 400 naming the tool and the path."""
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, face.with_tool(schema))
    assert status == 400, body
    message = face.envelope(status, body)["message"]
    assert "tool 'f'" in message and f"at {path}" in message, message


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize(("schema", "path"), UNSATISFIABLE, ids=UNSATISFIABLE_IDS)
def test_an_output_schema_the_generator_cannot_satisfy_is_a_400_naming_its_path(
    make_server: MakeServer, wire_to: WireTo, face: Face, schema: dict[str, Any], path: str
):
    wire = wire_to(make_server(RULES.replace("reply: {content: hi}", "match: {last_user: never}\n    reply: {}")))
    status, _, body = wire.ask(face, face.with_format(schema))
    assert status == 400, body
    assert f"at {path}" in face.envelope(status, body)["message"], body


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_pattern_is_followed_on_every_face(make_server: MakeServer, wire_to: WireTo, face: Face):
    schema = {
        "type": "object",
        "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}-[A-Z]{2}$"}},
        "required": ["zip"],
        "additionalProperties": False,
    }
    wire = wire_to(make_server(RULES.replace("reply: {content: hi}", "match: {last_user: never}\n    reply: {}")))
    status, _, body = wire.ask(face, face.with_format(schema))
    assert status == 200, body
    made = orjson.loads(structured_text(face, body))
    assert re.fullmatch("[0-9]{5}-[A-Z]{2}", made["zip"]), made
