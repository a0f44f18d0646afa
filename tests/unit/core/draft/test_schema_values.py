"""core/draft/schema_values.py: values made from a JSON Schema validate against it (jsonschema with
format checking), for 200 seeds, and the same seed gives the same value; a schema past the
budget, or one no value satisfies, raises naming its schema path (issue 31, item 1)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from faker import Faker
from jsonschema import Draft202012Validator, FormatChecker

from zenmux_emulator.core.draft.schema_values import MAX_BYTES, SchemaValues, Unsatisfiable

SEEDS = range(200)

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 2}, "email": {"type": "string", "format": "email"}},
    "required": ["name", "email"],
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "booking": {
        "type": "object",
        "$defs": {"person": PERSON},
        "properties": {
            "restaurant": {"type": "string", "enum": ["Chez Paul", "Sushi Zen"]},
            "date": {"type": "string", "format": "date"},
            "party_size": {"type": "integer", "minimum": 1, "maximum": 12},
            "contact": {"$ref": "#/$defs/person"},
            "guests": {"type": "array", "items": {"$ref": "#/$defs/person"}, "minItems": 1, "maxItems": 3},
            "preferences": {
                "type": "object",
                "properties": {
                    "seating": {"enum": ["indoor", "outdoor"]},
                    "high_chair": {"type": "boolean"},
                    "budget": {"type": "number", "minimum": 10, "maximum": 200},
                },
                "required": ["seating"],
            },
        },
        "required": ["restaurant", "date", "party_size", "contact", "guests", "preferences"],
        "additionalProperties": False,
    },
    "formats": {
        "type": "object",
        "properties": {
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "time"},
            "mail": {"type": "string", "format": "email"},
            "id": {"type": "string", "format": "uuid"},
            "host": {"type": "string", "format": "ipv4"},
            "link": {"type": "string", "format": "uri"},
        },
        "required": ["day", "at", "mail", "id", "host", "link"],
    },
    "numbers": {
        "type": "object",
        "properties": {
            "bounded": {"type": "integer", "minimum": -5, "maximum": 5},
            "exclusive": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 3},
            "narrow": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 0.6},
            "floor": {"type": "integer", "minimum": 1000},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
            "fixed": {"type": "integer", "minimum": 7, "maximum": 7},
        },
        "required": ["bounded", "exclusive", "narrow", "floor", "ratio", "fixed"],
    },
    "strings_and_arrays": {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 8, "maxLength": 10},
            "short": {"type": "string", "maxLength": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
            "matrix": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}},
            },
            "exact": {"type": "array", "items": {"type": "boolean"}, "minItems": 3, "maxItems": 3},
        },
        "required": ["code", "short", "tags", "matrix", "exact"],
    },
    "combinators": {
        "type": "object",
        "properties": {
            "maybe": {"type": ["null", "integer"], "minimum": 3, "maximum": 4},
            "either": {"anyOf": [{"type": "string", "format": "email"}, {"type": "integer"}]},
            "one": {"oneOf": [{"type": "integer", "minimum": 10, "maximum": 20}, {"type": "string", "maxLength": 0}]},
            "both": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"properties": {"b": {"const": "fixed"}}, "required": ["b"]},
                ]
            },
            "constant": {"const": {"k": [1, 2]}},
            "untyped": {"properties": {"x": {"enum": [1, "two", None]}}, "required": ["x"]},
        },
        "required": ["maybe", "either", "one", "both", "constant", "untyped"],
    },
    "patterns": {
        "type": "object",
        "properties": {
            "zip": {"type": "string", "pattern": "^\\d{5}(-\\d{4})?$"},
            "phone": {"type": "string", "pattern": "^\\+?[1-9]\\d{1,14}$"},
            "handle": {"type": "string", "pattern": "^[a-z0-9_-]{3,16}$", "minLength": 10},
            "code": {"type": "string", "pattern": "[A-Z]{3}", "maxLength": 3},
            "digits": {"type": "string", "pattern": "^\\d+$", "minLength": 20, "maxLength": 20},
            "either": {"type": "string", "pattern": "^(red|green|blue)$"},
        },
        "required": ["zip", "phone", "handle", "code", "digits", "either"],
    },
    "more_formats_and_keywords": {
        "type": "object",
        "properties": {
            "v6": {"type": "string", "format": "ipv6"},
            "host": {"type": "string", "format": "hostname"},
            "long_mail": {"type": "string", "format": "email", "minLength": 5},
            "step": {"type": "integer", "minimum": 1, "maximum": 100, "multipleOf": 7},
            "price": {"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.25},
            "both_bounds": {"type": "integer", "minimum": 0.5, "exclusiveMaximum": 3},
            "unique": {"type": "array", "items": {"enum": [1, 2, 3]}, "minItems": 2, "uniqueItems": True},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
                "minItems": 2,
            },
            "open": {"type": "object", "minProperties": 3, "additionalProperties": {"type": "integer"}},
            "needs": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]},
            "long": {"type": "string", "minLength": 5000},
        },
        "required": [
            "v6",
            "host",
            "long_mail",
            "step",
            "price",
            "both_bounds",
            "unique",
            "pair",
            "open",
            "needs",
            "long",
        ],
    },
    "nested_refs": {
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "string", "minLength": 5, "maxLength": 5}},
                "required": ["street", "zip"],
            },
            "company": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "hq": {"$ref": "#/$defs/address"}},
                "required": ["name", "hq"],
            },
        },
        "properties": {
            "employer": {"$ref": "#/$defs/company"},
            "offices": {"type": "array", "items": {"$ref": "#/$defs/address"}, "minItems": 1},
        },
        "required": ["employer", "offices"],
    },
}


def value(schema: dict[str, Any], seed: int) -> Any:
    faker = Faker()
    faker.seed_instance(seed)
    return SchemaValues(faker, schema).value(schema)


def failures(schema: dict[str, Any]) -> list[tuple[int, Any, str]]:
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    found = []
    for seed in SEEDS:
        made = value(schema, seed)
        errors = list(validator.iter_errors(made))
        if errors:
            found.append((seed, made, errors[0].message))
    return found


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_values_validate_for_200_seeds(name: str):
    Draft202012Validator.check_schema(SCHEMAS[name])
    bad = failures(SCHEMAS[name])
    assert bad == [], f"{len(bad)} of 200 seeds fail; first: {bad[0]}"


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_the_same_seed_gives_the_same_value(name: str):
    assert value(SCHEMAS[name], 7) == value(SCHEMAS[name], 7)
    assert len({repr(value(SCHEMAS[name], seed)) for seed in range(10)}) > 1


def test_enums_are_all_reachable():
    schema = {"type": "string", "enum": ["a", "b", "c"]}
    assert {value(schema, seed) for seed in SEEDS} == {"a", "b", "c"}


def test_strings_follow_the_property_name():
    made = value({"type": "object", "properties": {"email": {"type": "string"}, "city": {"type": "string"}}}, 3)
    assert "@" in made["email"]
    assert made["city"] and made["city"] != made["email"]


def test_date_time_values_are_rfc3339():
    # the module says it covers `date-time`; jsonschema's format check wants an RFC 3339 time with an offset
    bad = failures({"type": "string", "format": "date-time"})
    assert bad == [], f"{len(bad)} of 200 seeds fail; first: {bad[0]}"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "maximum": -5},
        {"type": "number", "maximum": -5},
        {"type": "integer", "exclusiveMaximum": 0},
        {"type": "number", "maximum": -0.5},
    ],
)
def test_a_maximum_below_the_default_range_is_respected(schema: dict[str, Any]):
    # only an upper bound, below the defaults (0..100 or -1..101): numeric bounds must still hold
    bad = failures(schema)
    assert bad == [], f"{schema}: {len(bad)} of 200 seeds fail; first: {bad[0]}"


def test_a_self_referencing_schema_terminates():
    tree = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
            }
        },
        "$ref": "#/$defs/node",
    }
    made = value(tree, 1)
    assert isinstance(made, dict) and isinstance(made["label"], str)


@pytest.mark.parametrize(
    ("schema", "where", "why"),
    [
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "array",
                        "minItems": 10,
                        "items": {"type": "array", "minItems": 100, "items": {"type": "string", "minLength": 10_000}},
                    }
                },
            },
            "#/properties/a/items/items",
            "bytes of JSON",
        ),
        (
            {
                "type": "array",
                "minItems": 100,
                "items": {"type": "array", "minItems": 100, "items": {"type": "integer"}},
            },
            "#/items/items",
            "values",
        ),
        (
            {"type": "object", "properties": {"p": {"type": "string", "pattern": "(a{1000}){1000}"}}},
            "#/properties/p/pattern",
            "budget",
        ),
        ({"type": "string", "pattern": "^\\d+$", "maxLength": 0, "minLength": 0}, "#/pattern", "0 to 0 characters"),
        ({"type": "integer", "minimum": 5, "maximum": 1}, "#", "bounds"),
        (
            {"type": "object", "properties": {"e": {"type": "string", "format": "email", "maxLength": 3}}},
            "#/properties/e",
            "email",
        ),
        ({"not": {}}, "#/not", "refuses"),
        (
            {
                "type": "object",
                "properties": {"t": {"$ref": "#/$defs/t"}},
                "$defs": {"t": {"type": "object", "properties": {"t": {"$ref": "#/$defs/t"}}, "required": ["t"]}},
            },
            "#/properties/t/properties/t",
            "deeper",
        ),
        ({"type": "object", "required": ["x"], "additionalProperties": False}, "#/additionalProperties", "'x'"),
        ({"type": "string", "anyOf": [{"type": "object"}]}, "#/anyOf", "no branch admits"),
        ({"type": "object", "anyOf": [False]}, "#/anyOf", "no branch admits"),
        ({"allOf": [{"type": "string"}, {"type": ["object", "null"]}]}, "#/allOf", "in common"),
    ],
    ids=[
        "huge-strings",
        "too-many-values",
        "huge-pattern",
        "pattern-vs-length",
        "empty-range",
        "format-vs-length",
        "not-anything",
        "required-recursion",
        "required-but-refused",
        "type-vs-any-of",
        "false-branch",
        "all-of-types-disjoint",
    ],
)
def test_a_schema_past_the_budget_or_unsatisfiable_names_its_path(schema: dict[str, Any], where: str, why: str):
    faker = Faker()
    faker.seed_instance(1)
    with pytest.raises(Unsatisfiable) as caught:
        SchemaValues(faker, schema).value(schema)
    assert caught.value.where.startswith(where) and why in caught.value.reason, (
        caught.value.where,
        caught.value.reason,
    )


def test_the_budget_holds_the_json_of_the_value():
    schema = {"type": "array", "minItems": 900, "items": {"type": "string", "minLength": 60}}
    made = value(schema, 1)
    assert len(made) == 900 and len(orjson.dumps(made)) <= MAX_BYTES


def test_an_unresolvable_ref_gives_a_value_not_an_error():
    made = value({"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}, 1)
    assert set(made) == {"x"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "anyOf": [{"type": "object"}, {"minLength": 3}]},
        {"type": "number", "oneOf": [{"type": "integer", "minimum": 2}]},
        {"type": "object", "anyOf": [False, {"required": ["a"]}]},
        {"allOf": [{"type": ["string", "integer"]}, {"type": ["number", "null"]}]},
    ],
    ids=["a-later-branch-agrees", "integer-is-a-number", "a-false-branch-is-passed", "all-of-types-intersect"],
)
def test_branches_and_parts_keep_the_schema_s_own_type(schema: dict[str, Any]):
    """Found by the fuzz suite: `{"type": "string", "anyOf": [{"type": "object"}]}` was answered
    with `{}`, the branch's type having replaced the schema's own."""
    for seed in range(20):
        made = value(schema, seed)
        assert Draft202012Validator(schema).is_valid(made), (schema, made)
