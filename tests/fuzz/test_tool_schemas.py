"""Issue 17, defect 2, fuzzed: thousands of JSON Schemas, valid and not, as a forced tool's
parameters. A schema jsonschema's meta-schema check refuses is a 400 in the face's envelope; any
other gets a tool call whose arguments are a JSON object; nothing answers 500."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.fuzz.conftest import fuzzing
from tests.hardening.faces import FACES, Wire

NUMBERS = st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False)
LEAF = st.none() | st.booleans() | NUMBERS | st.text(max_size=6)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null", "nonsense"])
KEYWORDS: dict[str, st.SearchStrategy[Any]] = {
    "type": TYPES | st.lists(TYPES, max_size=3) | LEAF,
    "minimum": NUMBERS,
    "maximum": NUMBERS,
    "exclusiveMinimum": NUMBERS,
    "exclusiveMaximum": NUMBERS,
    "minLength": st.integers(-2, 20_000) | LEAF,
    "maxLength": st.integers(-2, 40),
    "minItems": st.integers(-2, 300),
    "maxItems": st.integers(-2, 5),
    "multipleOf": NUMBERS,
    "enum": st.lists(LEAF, max_size=3) | LEAF,
    "const": LEAF,
    "uniqueItems": st.booleans(),
    "format": st.sampled_from(["date", "date-time", "email", "uri", "uuid", "ipv4", "time", "regex", "zzz"]),
    "pattern": st.sampled_from(["^a+$", "(", "[a-z]{2}", "\\"]),
    "required": st.lists(st.text(max_size=3), max_size=3) | LEAF,
    "$ref": st.sampled_from(["#/$defs/a", "#/$defs/b", "#/nowhere", "#", "http://example.com/s"]),
    "$schema": st.sampled_from(["http://json-schema.org/draft-07/schema#", "https://example.com/x", 7]),
}


def pairs(keywords: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A schema of up to four of these keywords (drawn as pairs: cheaper than optional keys)."""
    return st.lists(st.one_of([st.tuples(st.just(k), v) for k, v in keywords.items()]), max_size=4).map(dict)


def node(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    names = st.text(alphabet="abcxyz_", min_size=1, max_size=5)
    return pairs(
        {
            **KEYWORDS,
            "properties": st.dictionaries(names, inner, max_size=3) | LEAF,
            "items": inner,
            "additionalProperties": inner,
            "anyOf": st.lists(inner, max_size=3),
            "oneOf": st.lists(inner, max_size=2),
            "allOf": st.lists(inner, max_size=3) | LEAF,
            "not": inner,
            "$defs": st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
        }
    )


SCHEMAS = node(st.recursive(st.booleans() | pairs(KEYWORDS), node, max_leaves=8))


UNSATISFIABLE = "the emulator cannot make a value for this JSON Schema at #"
UNCHECKED = frozenset({"not", "multipleOf", "uniqueItems", "$ref", "$schema", "oneOf", "format"})
"""Keywords whose made values the oracle does not hold the generator to (it makes the first
branch of a `oneOf`, ignores `not` but for `not: {}`, follows only local `$ref`s, and so on)."""


def unchecked(schema: Any) -> bool:
    """Whether the schema uses a keyword the generator follows only in part, anywhere inside."""
    if isinstance(schema, dict):
        return bool(UNCHECKED.intersection(schema)) or any(unchecked(v) for v in schema.values())
    if isinstance(schema, list):
        return any(unchecked(v) for v in schema)
    return False


def valid(schema: dict[str, Any]) -> bool:
    """The oracle: jsonschema's own meta-schema check (2020-12, the server's default)."""
    declared = schema.get("$schema")
    if declared is not None and not isinstance(declared, str):
        return False
    from jsonschema import validators

    checker = validators.validator_for(schema, default=Draft202012Validator)
    return checker(checker.META_SCHEMA, format_checker=checker.FORMAT_CHECKER).is_valid(schema)


def test_2000_fuzzed_schemas_on_the_chat_face_get_a_400_or_a_call_never_a_500(wire: Wire):
    chat = FACES[0]
    outcomes = {"refused": 0, "called": 0, "unsatisfiable": 0}

    @fuzzing(2000)
    @given(SCHEMAS)
    def check(schema: dict[str, Any]) -> None:
        status, _, body = wire.ask(chat, chat.with_tool(schema))
        if valid(schema) and status == 400:  # issue 31: what cannot be made is a 400 naming where
            assert UNSATISFIABLE in chat.envelope(status, body)["message"], (schema, body)
            outcomes["unsatisfiable"] += 1
        elif valid(schema):
            assert status == 200, (schema, body)
            [call] = orjson.loads(body)["choices"][0]["message"]["tool_calls"]
            arguments = orjson.loads(call["function"]["arguments"])
            assert isinstance(arguments, dict)
            assert unchecked(schema) or Draft202012Validator(schema).is_valid(arguments), (schema, arguments)
            outcomes["called"] += 1
        else:
            assert status == 400, (schema, body)
            assert "JSON Schema" in chat.envelope(status, body)["message"]
            outcomes["refused"] += 1

    check()
    assert sum(outcomes.values()) >= 2000
    assert min(outcomes["refused"], outcomes["called"]) >= 200, outcomes  # both kinds were tried, many times


def test_fuzzed_schemas_on_the_other_faces_never_get_a_500(wire: Wire):
    sent = []

    @fuzzing(600)
    @given(st.sampled_from(FACES[1:]), SCHEMAS)
    def check(face: Any, schema: dict[str, Any]) -> None:
        status, _, body = wire.ask(face, face.with_tool(schema))
        assert status in (200, 400), (face.name, schema, body)
        if status == 400:
            message = face.envelope(status, body)["message"]
            assert valid(schema) == (UNSATISFIABLE in message), (face.name, schema, body)
        else:
            assert valid(schema), (face.name, schema, body)
        sent.append(face.name)

    check()
    assert len(sent) >= 600 and set(sent) == {"anthropic", "responses", "objectiveai", "vertex", "interactions"}
