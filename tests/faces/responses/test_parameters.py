"""The parameters the chat face's contract suite covers, on the Responses face: the same neutral
core gives them the same effect (web search citations, reasoning by model, tool_choice, limits)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from tests.conftest import MakeServer
from tests.faces.chat.contract.helpers import assert_envelope
from tests.faces.responses.helpers import MODEL, WEATHER_TOOL, created, post, streamed
from tests.support.clients import sdk
from zenmux_emulator.core.headers import WARNINGS_HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PLAIN = "acme/plain"
PLAIN_MODEL = f"models:\n  {PLAIN}: {{reasoning: false}}\n"
"""A non-reasoning model declared by the test, whatever the built-in catalogue holds."""


def message_of(response: dict[str, Any]) -> dict[str, Any]:
    (message,) = [item for item in response["output"] if item["type"] == "message"]
    return message


def test_a_web_search_tool_gets_seeded_citations_of_the_text(server: EmulatorServer) -> None:
    body = {"model": MODEL, "input": "what happened today?", "tools": [{"type": "web_search"}]}
    (part,) = message_of(created(server, body))["content"]
    assert part["annotations"]
    for note in part["annotations"]:
        assert set(note) == {"type", "url", "title", "start_index", "end_index"} and note["type"] == "url_citation"
        assert 0 <= note["start_index"] < note["end_index"] <= len(part["text"])
    added = [e for e in streamed(server, body) if e["type"] == "response.output_text.annotation.added"]
    assert [e["annotation"] for e in added] == part["annotations"]
    assert [e["annotation_index"] for e in added] == list(range(len(added)))


def test_without_web_search_there_are_no_citations(server: EmulatorServer) -> None:
    (part,) = message_of(created(server, {"model": MODEL, "input": "what happened today?"}))["content"]
    assert part["annotations"] == []


def test_a_reasoning_model_reasons_unasked_and_shows_no_summary(server: EmulatorServer) -> None:
    response = created(server, {"model": MODEL, "input": "an unscripted question"})
    reasoning = response["output"][0]
    assert reasoning["type"] == "reasoning" and reasoning["summary"] == []
    assert response["usage"]["output_tokens_details"]["reasoning_tokens"] == 5120


def test_a_non_reasoning_model_ignores_the_ask_with_a_warning(make_server: MakeServer) -> None:
    raw = post(
        make_server(PLAIN_MODEL), {"model": PLAIN, "input": "an unscripted question", "reasoning": {"effort": "high"}}
    )
    assert raw.status == 200
    assert [item["type"] for item in raw.json()["output"]] == ["message"]
    assert raw.json()["usage"]["output_tokens_details"]["reasoning_tokens"] == 0
    assert f"{PLAIN} is not a reasoning model" in raw.headers.get(WARNINGS_HEADER, "")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"tool_choice": "required"},
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        ),
        (
            {"tools": [WEATHER_TOOL], "tool_choice": {"type": "function", "name": "get_time"}},
            "Tool choice 'function' with name 'get_time' not found in 'tools' parameter.",
        ),
    ],
    ids=["required-without-tools", "named-not-offered"],
)
def test_a_tool_choice_no_tool_satisfies_is_a_400(server: EmulatorServer, fields: dict[str, Any], message: str) -> None:
    assert_envelope(post(server, {"model": MODEL, "input": "hi", **fields}), 400, "invalid_params", message)


def test_the_limit_cuts_a_forced_call_s_arguments(make_server: MakeServer) -> None:
    server = make_server(PLAIN_MODEL)
    note = {
        "type": "function",
        "name": "write_note",
        "parameters": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "text": {"type": "string"}, "message": {"type": "string"}},
        },
        "strict": False,
    }
    body = {
        "model": PLAIN,
        "input": "an unscripted question",
        "tools": [note],
        "tool_choice": {"type": "function", "name": "write_note"},
    }
    full = created(server, body)["output"][0]["arguments"]
    cut = created(server, {**body, "max_output_tokens": 16})
    assert cut["status"] == "incomplete" and cut["incomplete_details"] == {"reason": "max_output_tokens"}
    (call,) = cut["output"]
    assert full.startswith(call["arguments"]) and call["arguments"] != full
    assert cut["usage"]["output_tokens"] == 16


class City(BaseModel):
    name: str
    population: int


def test_parse_streamed_gets_valid_unscripted_json(server: EmulatorServer, session: str) -> None:
    with (
        sdk(server, session) as client,
        client.responses.stream(model=MODEL, input="a city", text_format=City) as stream,
    ):
        final = stream.get_final_response()
    assert isinstance(final.output_parsed, City)
