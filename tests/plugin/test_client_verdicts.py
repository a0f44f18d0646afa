"""`zenmux.verdict()` and `assert_client_well_behaved()` on every face, end to end through the
plugin's handle and the official SDKs: the same misbehaving agent (signed reasoning tampered with,
the refused request sent again unchanged, a tool call abandoned) is found on chat, Anthropic and
Responses alike, and a well-behaved tool loop has no findings."""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import openai
import pytest

from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle

RULES = """\
rules:
  - name: call-weather
    match: {tools: [get_weather], tool_result: false}
    reply:
      reasoning: "I will call get_weather for Paris."
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: answer-weather
    match: {tool_result: {name: get_weather}}
    reply: {reasoning: "The tool answered.", content: "Paris is {{ request.tool_result.content }}."}
"""
SONNET = "anthropic/claude-sonnet-4.5"
GPT = "openai/gpt-5"
ASK = "What's the weather in Paris?"
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": PARAMETERS}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": PARAMETERS}
RESPONSES_TOOL = {"type": "function", "name": "get_weather", "parameters": PARAMETERS}
MISBEHAVED = [("reasoning", 2), ("non_retryable", 3), ("reasoning", 3), ("tool_calls", 4)]


def checks(zenmux: ZenmuxHandle) -> list[tuple[str, int]]:
    first = zenmux.requests[0].seq - 1
    return [(f.check, f.seq - first) for f in zenmux.verdict()]


def refused_twice(send: Any, error: type[Exception]) -> None:
    """The misbehaving agent: sends the tampered turn, and sends it again unchanged when refused."""
    for _ in range(2):
        with pytest.raises(error) as caught:
            send()
        assert getattr(caught.value, "status_code", None) == 400


def assert_misbehaved(zenmux: ZenmuxHandle, rejection: str) -> None:
    assert checks(zenmux) == MISBEHAVED
    with pytest.raises(AssertionError) as failed:
        zenmux.assert_client_well_behaved()
    report = str(failed.value)
    assert "the client misbehaved:" in report and rejection in report
    assert "(get_weather) was never answered" in report


# --- chat completions -----------------------------------------------------------------------------


def chat_loop(zenmux: ZenmuxHandle, *, tamper: bool) -> None:
    client = zenmux.openai_client()
    options: Any = {"model": SONNET, "tools": [CHAT_TOOL], "extra_body": {"reasoning": {"enabled": True}}}
    asked: list[Any] = [{"role": "user", "content": ASK}]
    message = client.chat.completions.create(messages=asked, **options).choices[0].message
    sent = message.model_dump(exclude_none=True)
    if tamper:
        sent["reasoning_details"][0]["text"] += " (edited)"
    answer = {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "sunny"}  # type: ignore[index]
    history = [*asked, sent, answer]
    if not tamper:
        assert (
            client.chat.completions.create(messages=history, **options).choices[0].message.content == "Paris is sunny."
        )
        return
    refused_twice(lambda: client.chat.completions.create(messages=history, **options), openai.BadRequestError)
    client.chat.completions.create(messages=asked, **options)  # a fresh call, then abandoned


def test_chat_verdicts(zenmux: ZenmuxHandle) -> None:
    zenmux.load(RULES)
    chat_loop(zenmux, tamper=False)
    assert zenmux.verdict() == []
    zenmux.assert_client_well_behaved()
    zenmux.clear()
    chat_loop(zenmux, tamper=True)
    assert_misbehaved(zenmux, "rejected with 400: messages.1.content.0: Invalid `signature` in `thinking` block")


# --- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_loop(zenmux: ZenmuxHandle, *, tamper: bool) -> None:
    client = anthropic.Anthropic(
        base_url=zenmux.anthropic_url,
        api_key=zenmux.api_key,
        max_retries=0,
        default_headers={"anthropic-version": "2023-06-01"},
    )
    options: Any = {
        "model": SONNET,
        "max_tokens": 4096,
        "tools": [ANTHROPIC_TOOL],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }
    asked: list[Any] = [{"role": "user", "content": ASK}]
    with client.messages.stream(messages=asked, **options) as stream:
        first = stream.get_final_message()
    sent: list[Any] = [block.model_dump(exclude_none=True) for block in first.content]
    if tamper:
        sent[0]["thinking"] += " (edited)"
    call_id = sent[1]["id"]
    history = [
        *asked,
        {"role": "assistant", "content": sent},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "sunny"}]},
    ]
    try:
        if not tamper:
            reply = client.messages.create(messages=history, **options)
            assert reply.content[-1].text == "Paris is sunny."  # type: ignore[union-attr]
            return
        refused_twice(lambda: client.messages.create(messages=history, **options), anthropic.BadRequestError)
        client.messages.create(messages=asked, **options)
    finally:
        client.close()


def test_anthropic_verdicts(zenmux: ZenmuxHandle) -> None:
    zenmux.load(RULES)
    anthropic_loop(zenmux, tamper=False)
    assert zenmux.verdict() == []
    zenmux.assert_client_well_behaved()
    zenmux.clear()
    anthropic_loop(zenmux, tamper=True)
    assert_misbehaved(zenmux, "rejected with 400: messages.1.content.0: Invalid `signature` in `thinking` block")


# --- Responses ------------------------------------------------------------------------------------


def responses_loop(zenmux: ZenmuxHandle, *, tamper: bool) -> None:
    client = zenmux.openai_client()
    options: Any = {
        "model": GPT,
        "tools": [RESPONSES_TOOL],
        "reasoning": {"effort": "low", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
    }
    with client.responses.stream(input=ASK, **options) as stream:
        first = stream.get_final_response()
    reasoning, call = (item.model_dump(exclude_none=True) for item in first.output)
    if tamper:
        reasoning["encrypted_content"] = reasoning["encrypted_content"][:-8] + "AAAAAAAA"
    history = [
        {"role": "user", "content": ASK},
        reasoning,
        copy.deepcopy(call),
        {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"},
    ]
    if not tamper:
        assert client.responses.create(input=history, **options).output_text == "Paris is sunny."
        return
    refused_twice(lambda: client.responses.create(input=history, **options), openai.BadRequestError)
    client.responses.create(input=ASK, **options)


def test_responses_verdicts(zenmux: ZenmuxHandle) -> None:
    zenmux.load(RULES)
    responses_loop(zenmux, tamper=False)
    assert zenmux.verdict() == []
    zenmux.assert_client_well_behaved()
    zenmux.clear()
    responses_loop(zenmux, tamper=True)
    assert_misbehaved(zenmux, "could not be verified.")
