"""Client checks under the plugin: a rule's unmet `expect` fails the test that sent the request, and
`assert_client_well_behaved()` fails with the journal's findings."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import write_example

CHECKS = """
import json


def test_cold_request_misses_the_expectation(zenmux):
    zenmux.add_rule("needs-zero-temperature", expect={"body": {"temperature": 0}}, reply={"content": "ok"})
    reply = zenmux.openai_client().chat.completions.create(
        model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}], temperature=0.7)
    assert reply.choices[0].message.content == "ok"  # answered all the same; the plugin fails the test


def test_agent_that_never_answers_its_tool_call(zenmux):
    zenmux.add_rule("call-tool", reply={"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    zenmux.openai_client().chat.completions.create(
        model="openai/gpt-5", messages=[{"role": "user", "content": "weather?"}])
    zenmux.assert_client_well_behaved()


def test_agent_that_answers_is_well_behaved(zenmux):
    zenmux.add_rule("call-tool", match={"tool_result": False},
                    reply={"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    zenmux.add_rule("answer", match={"tool_result": True}, reply={"content": "sunny"})
    client = zenmux.openai_client()
    messages = [{"role": "user", "content": "weather?"}]
    first = client.chat.completions.create(model="openai/gpt-5", messages=messages).choices[0].message
    call = first.tool_calls[0]
    messages += [first.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": call.id, "content": "sunny"}]
    assert client.chat.completions.create(model="openai/gpt-5", messages=messages).choices[0].message.content == "sunny"
    assert zenmux.verdict() == []
    zenmux.assert_client_well_behaved()
"""


def test_expectations_and_client_checks_fail_the_test_that_broke_them(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_checks.py": CHECKS})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/test_checks.py")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*requests did not meet the scenario's expectations:",
            "*needs-zero-temperature: expected body.temperature equals 0, got 0.7",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "E*AssertionError: the client misbehaved:",
            "E*[[]tool_calls] request #*: tool call call_* (get_weather) was never answered",
        ]
    )
