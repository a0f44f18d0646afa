"""Assertions that a response body, stream chunk or Responses event matches OpenAI's published schemas.

The schemas come from `openai_schemas.json` next to this file, extracted from OpenAI's OpenAPI spec by
`tools/extract_openai_schemas.py` (re-run it to refresh them). They allow extra properties, so ZenMux's
own additions pass; formats are not asserted.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

SCHEMAS = Path(__file__).with_name("openai_schemas.json")


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = json.loads(SCHEMAS.read_text(encoding="utf-8"))[name]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _describe(error: ValidationError) -> str:
    line = f"{error.json_path}: {error.message}"
    # anyOf/oneOf: say why the closest alternative failed, not that the value is not null.
    alternatives = [e for e in error.context or () if not (e.validator == "type" and e.validator_value == "null")]
    if alternatives:
        closest = best_match(alternatives)
        line += f" (closest: {closest.json_path}: {closest.message})"
    return line


def _check(name: str, instance: object) -> None:
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: [str(part) for part in e.absolute_path])
    if errors:
        listed = "\n".join(f"  - {_describe(error)}" for error in errors)
        raise AssertionError(f"not a valid {name} ({len(errors)} errors):\n{listed}")


def assert_chat_completion(body: dict) -> None:
    """Raise AssertionError listing every way `body` breaks OpenAI's CreateChatCompletionResponse."""
    _check("CreateChatCompletionResponse", body)


def assert_chat_chunk(chunk: dict) -> None:
    """Raise AssertionError listing every way `chunk` breaks OpenAI's CreateChatCompletionStreamResponse."""
    _check("CreateChatCompletionStreamResponse", chunk)


@cache
def _responses_validator(name: str) -> Draft202012Validator:
    defs = json.loads(SCHEMAS.read_text(encoding="utf-8"))["Responses"]["$defs"]
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": f"#/$defs/{name}", "$defs": defs}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@cache
def _event_schemas() -> dict[str, str]:
    """Each streaming event's `type` → the name of its schema (the branches of ResponseStreamEvent)."""
    defs = json.loads(SCHEMAS.read_text(encoding="utf-8"))["Responses"]["$defs"]
    names = {}
    for branch in defs["ResponseStreamEvent"]["anyOf"]:
        name = branch["$ref"].removeprefix("#/$defs/")
        names[defs[name]["properties"]["type"]["enum"][0]] = name
    return names


def _check_responses(name: str, instance: object) -> None:
    errors = sorted(_responses_validator(name).iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        listed = "\n".join(f"  - {_describe(error)}" for error in errors)
        raise AssertionError(f"not a valid {name} ({len(errors)} errors):\n{listed}")


def assert_response(body: dict) -> None:
    """Raise AssertionError listing every way `body` breaks OpenAI's Response."""
    _check_responses("Response", body)


def assert_response_event(event: dict) -> None:
    """Check a streaming event against the schema of its own `type` (not merely any event's)."""
    name = _event_schemas().get(event.get("type"))
    assert name is not None, f"{event.get('type')!r} is not a Responses streaming event"
    _check_responses(name, event)


def assert_response_item_list(body: dict) -> None:
    """Raise AssertionError listing every way `body` breaks OpenAI's ResponseItemList (input_items)."""
    _check_responses("ResponseItemList", body)
