"""scenarios/agents.yaml with the OpenAI Agents SDK: an Agent with a function tool completes the
scripted tool loop through `Runner.run` and `Runner.run_streamed`, over the Responses face.

The model is an `OpenAIResponsesModel` on an AsyncOpenAI client, so `openai/gpt-5` is sent as is
(given as a string, the SDK's MultiProvider would strip the `openai/` prefix); tracing is off, so
nothing leaves the machine."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import openai
import pytest
from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled

from tests.conftest import SHIPPED
from tests.support.clients import async_sdk
from tests.support.openai_schema import assert_response
from tests.support.shipped import load_paths
from zenmux_emulator.pytest_plugin.server import EmulatorServer

FILE = SHIPPED / "agents.yaml"
QUESTION = "What is the weather in Paris?"
ANSWER = "Here is the forecast: Sunny in Paris, 21C"

set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> str:
    """Return the weather for a city."""
    return f"Sunny in {city}, 21C"


@pytest.fixture
async def client(shipped: EmulatorServer, session: str) -> AsyncIterator[openai.AsyncOpenAI]:
    async with async_sdk(shipped, session) as c:
        yield c


def agent(client: openai.AsyncOpenAI) -> Agent:
    model = OpenAIResponsesModel(model="openai/gpt-5", openai_client=client)
    return Agent(name="Assistant", instructions="You are a helpful assistant.", model=model, tools=[get_weather])


def test_every_rule_of_agents_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == {"agents-weather-call", "agents-weather-answer"}


async def test_runner_run_completes_the_scripted_tool_loop(shipped, session, client):
    result = await Runner.run(agent(client), QUESTION)
    assert result.final_output == ANSWER
    assert result.last_response_id is not None and result.last_response_id.startswith("resp_")
    calls = [item for item in result.new_items if item.type == "tool_call_item"]
    outputs = [item for item in result.new_items if item.type == "tool_call_output_item"]
    assert [c.raw_item.name for c in calls] == ["get_weather"]
    assert [json.loads(c.raw_item.arguments) for c in calls] == [{"city": "Paris"}]
    assert [o.output for o in outputs] == ["Sunny in Paris, 21C"]
    for response in result.raw_responses:
        assert response.usage.total_tokens > 0
    raw = await client.responses.with_raw_response.retrieve(result.last_response_id)
    assert_response(raw.http_response.json())
    assert raw.parse().output_text == ANSWER


async def test_runner_run_streamed_completes_it_too(client):
    streamed = Runner.run_streamed(agent(client), QUESTION)
    kinds = []
    async for event in streamed.stream_events():
        kind = event.data.type if event.type == "raw_response_event" else event.type
        if not kinds or kinds[-1] != kind:
            kinds.append(kind)
    assert streamed.final_output == ANSWER
    assert "response.function_call_arguments.delta" in kinds and "response.output_text.delta" in kinds
    assert kinds.count("response.completed") == 2


async def test_the_loop_continues_from_a_stored_response(client):
    result = await Runner.run(agent(client), QUESTION, auto_previous_response_id=True)
    assert result.final_output == ANSWER
    second = await client.responses.retrieve(result.last_response_id)
    assert second.previous_response_id is not None
    first = await client.responses.retrieve(second.previous_response_id)
    assert first.output[0].type == "function_call"


async def test_the_rules_answer_only_responses_clients(client):
    chat = await client.chat.completions.create(
        model="openai/gpt-5",
        messages=[{"role": "user", "content": QUESTION}],
        tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
    )
    assert not chat.choices[0].message.tool_calls
