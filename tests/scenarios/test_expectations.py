"""A rule's `expect` block: the rule still answers, and what the request lacked is reported in the
`X-Emulator-Expectations` header and the journal."""

from __future__ import annotations

import copy
import json

from tests.conftest import MakeServer
from tests.scenarios.helpers import post_chat

EXPECTING = """
rules:
  - name: answer-weather
    match: {tool_result: true}
    expect:
      body: {temperature: 0}
      tool_result: {name: get_weather, json: {unit: celsius}}
    reply: {content: "It is mild."}
"""
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}


def turn_two(result: dict[str, object], **body: object) -> dict[str, object]:
    return {
        "model": "openai/gpt-5",
        **body,
        "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(result)},
        ],
    }


def test_a_request_meeting_every_expectation_has_no_report(make_server: MakeServer) -> None:
    server = make_server(EXPECTING)
    answer = post_chat(server, turn_two({"unit": "celsius"}, temperature=0))
    assert answer.status == 200 and answer.json()["choices"][0]["message"]["content"] == "It is mild."
    assert "x-emulator-expectations" not in answer.headers
    [entry] = server.state.journal.entries()
    assert entry.unmet_expectations == []


def test_unmet_expectations_are_answered_and_reported(make_server: MakeServer) -> None:
    server = make_server(EXPECTING)
    answer = post_chat(server, turn_two({"unit": "fahrenheit"}, temperature=0.7))
    assert answer.status == 200 and answer.headers["x-emulator-rule"] == "answer-weather"
    header = answer.headers["x-emulator-expectations"]
    assert "body.temperature equals 0, got 0.7" in header
    assert 'tool_result.json.unit equals "celsius", got "fahrenheit"' in header
    [entry] = server.state.journal.entries()
    assert len(entry.unmet_expectations) == 2
    assert all(u.startswith("answer-weather: expected ") for u in entry.unmet_expectations)


REASONING = """
rules:
  - name: call
    match: {tool_result: false}
    reply:
      reasoning: "I will call the tool."
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: answer
    match: {tool_result: true}
    expect: {reasoning_intact: true}
    reply: {content: "done"}
"""


def test_reasoning_intact_catches_what_a_lenient_check_lets_through(make_server: MakeServer) -> None:
    # With --reasoning-check off the edit passes the gateway; the rule's expectation still sees it.
    server = make_server(REASONING, reasoning_check="off")
    first = {
        "model": "anthropic/claude-sonnet-4.5",
        "reasoning": {"enabled": True},
        "messages": [{"role": "user", "content": "weather in Paris?"}],
    }
    message = post_chat(server, first).json()["choices"][0]["message"]
    result = {"role": "tool", "tool_call_id": message["tool_calls"][0]["id"], "content": "sunny"}

    intact = post_chat(server, {**first, "messages": [*first["messages"], message, result]})
    assert intact.status == 200 and "x-emulator-expectations" not in intact.headers

    edited = copy.deepcopy(message)
    edited["reasoning_details"][0]["text"] = "I will call the tool!"
    changed = post_chat(server, {**first, "messages": [*first["messages"], edited, result]})
    assert changed.status == 200
    assert "answer: expected the signed reasoning back intact" in changed.headers["x-emulator-expectations"]
    assert "Invalid `signature`" in changed.headers["x-emulator-expectations"]
