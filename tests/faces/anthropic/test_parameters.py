"""The neutral core's parameter effects on the Messages face: structured output from
`output_config.format`, tool_choice enforced, max_tokens spent on tool input too."""

from __future__ import annotations

import json
from collections.abc import Iterator

import jsonschema
import pytest

from tests.faces.anthropic.helpers import body, post
from tests.faces.chat.agent.helpers import serve
from zenmux_emulator.core.headers import WARNINGS_HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "rank": {"type": "integer"}},
    "required": ["city", "rank"],
    "additionalProperties": False,
}
TOOLS = [
    {"name": name, "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    for name in ("get_weather", "get_time")
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with serve(
        tmp_path_factory.mktemp("anthropic-parameters"),
        """
        rules:
          - name: two-calls
            match: {last_user: "two calls"}
            reply:
              tool_calls: [{name: get_weather, arguments: {city: Paris}}, {name: get_time, arguments: {city: Oslo}}]
          - name: prose
            match: {last_user: "prose please"}
            reply: {content: "plain prose"}
    """,
    ) as running:
        yield running


def test_output_config_format_gets_json_that_fits_the_schema(server: EmulatorServer) -> None:
    raw = post(
        server, body("an unscripted question", output_config={"format": {"type": "json_schema", "schema": SCHEMA}})
    )
    assert raw.status == 200, raw.text
    (block,) = raw.json()["content"]
    jsonschema.validate(json.loads(block["text"]), SCHEMA)


def test_scripted_prose_under_a_json_format_is_warned_of(server: EmulatorServer) -> None:
    raw = post(server, body("prose please", output_config={"format": {"type": "json_schema", "schema": SCHEMA}}))
    assert raw.json()["content"] == [{"type": "text", "text": "plain prose"}]
    assert "does not fit the requested response format: it is not JSON" in raw.headers[WARNINGS_HEADER.lower()]


def test_a_forced_tool_drops_the_other_scripted_calls(server: EmulatorServer) -> None:
    raw = post(server, body("two calls", tools=TOOLS, tool_choice={"type": "tool", "name": "get_time"}))
    (block,) = raw.json()["content"]
    assert (block["type"], block["name"], block["input"]) == ("tool_use", "get_time", {"city": "Oslo"})
    assert raw.json()["stop_reason"] == "tool_use"


def test_max_tokens_cuts_the_tool_input(server: EmulatorServer) -> None:
    raw = post(server, body("two calls", tools=TOOLS, max_tokens=6))  # the name is 3 tokens, its input 3 of 8
    answer = raw.json()
    assert answer["stop_reason"] == "max_tokens" and answer["usage"]["output_tokens"] == 6
    (block,) = answer["content"]
    assert block["name"] == "get_weather" and block["input"] != {"city": "Paris"}
