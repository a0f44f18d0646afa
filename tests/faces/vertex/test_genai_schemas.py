"""Structured output as google-genai sends it (issue 42): the SDK writes a schema with the proto's
snake_case names (`any_of`, `property_ordering`), a `Union` as `anyOf`, an enum as `text/x.enum`;
`parsed` is then a value of the asked type. Upper-case types in `responseJsonSchema` (Gemini CLI's
model router writes them) are taken as Google takes them."""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator
from typing import Union

import pytest
from google.genai import types
from pydantic import BaseModel

from tests.conftest import served_yaml
from tests.faces.vertex.helpers import MODEL, SCENARIO, ask, client, post
from zenmux_emulator.pytest_plugin.server import EmulatorServer

FORMS = [pytest.param(True, id="vertexai"), pytest.param(False, id="gemini-api")]


class City(BaseModel):
    name: str
    population: int


class Colour(BaseModel):
    hue: str


class Fruit(enum.Enum):
    APPLE = "apple"
    PEAR = "pear"
    PLUM = "plum"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("vertex-schemas"), SCENARIO) as started:
        yield started


def structured(server: EmulatorServer, vertexai: bool, session: str, **config: object) -> types.GenerateContentResponse:
    gemini = client(server, f"{session}-{vertexai}", vertexai=vertexai)
    options = types.GenerateContentConfig(response_mime_type="application/json", **config)  # type: ignore[arg-type]
    return gemini.models.generate_content(model=MODEL, contents="Answer in the schema", config=options)


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_union_of_numbers_is_parsed_as_a_number(server: EmulatorServer, vertexai: bool) -> None:
    reply = structured(server, vertexai, "numbers", response_schema=Union[int, float])  # noqa: UP007  # the SDK reads a typing.Union
    assert isinstance(reply.parsed, (int, float)) and not isinstance(reply.parsed, bool), reply.text


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_union_of_two_models_is_parsed_as_one_of_them(server: EmulatorServer, vertexai: bool) -> None:
    reply = structured(server, vertexai, "models", response_schema=Union[City, Colour])  # noqa: UP007
    assert isinstance(reply.parsed, (City, Colour)), reply.text


@pytest.mark.parametrize("vertexai", FORMS)
def test_an_any_of_json_schema_gives_a_value_of_one_branch(server: EmulatorServer, vertexai: bool) -> None:
    schema = {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
    reply = structured(server, vertexai, "any-of", response_json_schema=schema)
    assert isinstance(reply.parsed, (int, bool)), reply.text


@pytest.mark.parametrize("vertexai", FORMS)
def test_an_enum_as_text_is_one_of_its_values(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"enum-{vertexai}", vertexai=vertexai)
    config = types.GenerateContentConfig(response_mime_type="text/x.enum", response_schema=Fruit)
    reply = gemini.models.generate_content(model=MODEL, contents="Pick a fruit", config=config)
    assert reply.text in {"apple", "pear", "plum"}
    assert isinstance(reply.parsed, Fruit)


def test_property_ordering_orders_the_keys_in_either_spelling(server: EmulatorServer) -> None:
    properties = {name: {"type": "STRING"} for name in ("alpha", "beta", "gamma", "delta")}
    order = ["gamma", "alpha", "delta", "beta"]
    for spelling in ("propertyOrdering", "property_ordering"):
        schema = {"type": "OBJECT", "properties": properties, spelling: order}
        config = {"responseMimeType": "application/json", "responseSchema": schema}
        answer = post(server, f"/v1beta/models/{MODEL}:generateContent", ask("order", generationConfig=config))
        assert answer.status == 200, answer.body
        text = answer.json()["candidates"][0]["content"]["parts"][0]["text"]
        assert list(json.loads(text)) == order


def test_upper_case_types_in_a_response_json_schema_are_taken(server: EmulatorServer) -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"reasoning": {"type": "STRING"}, "model_choice": {"type": "STRING", "enum": ["flash", "pro"]}},
        "required": ["reasoning", "model_choice"],
    }
    config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    answer = post(server, f"/v1beta/models/{MODEL}:generateContent", ask("route", generationConfig=config))
    assert answer.status == 200, answer.body
    value = json.loads(answer.json()["candidates"][0]["content"]["parts"][0]["text"])
    assert value["model_choice"] in {"flash", "pro"} and isinstance(value["reasoning"], str)


def test_a_schema_that_is_none_in_either_spelling_is_still_refused(server: EmulatorServer) -> None:
    config = {"responseMimeType": "application/json", "responseJsonSchema": {"type": "OBJECT", "properties": 3}}
    answer = post(server, f"/v1beta/models/{MODEL}:generateContent", ask("route", generationConfig=config))
    assert answer.status == 400 and "responseJsonSchema" in answer.text
