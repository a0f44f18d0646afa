"""LangChain's ChatGoogleGenerativeAI (pinned), which takes a base URL: on the Gemini API's form
(`vertexai=False`, it calls `v1/models/…`) and Vertex AI's (`vertexai=True`, `v1beta1/publishers/…`),
plain, streamed, and a Gemini 3 tool loop whose signed call LangChain carries back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI

from tests.conftest import API_KEY, served_yaml
from tests.faces.vertex.helpers import GEMINI_3, MODEL, SCENARIO
from zenmux_emulator.pytest_plugin.server import EmulatorServer


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("vertex-langchain"), SCENARIO) as started:
        yield started


def chat(server: EmulatorServer, model: str, vertexai: bool) -> ChatGoogleGenerativeAI:
    return ChatGoogleGenerativeAI(
        model=model, google_api_key=API_KEY, base_url=server.url("vertex"), vertexai=vertexai, max_retries=0
    )


@pytest.mark.parametrize("vertexai", [True, False], ids=["vertexai", "gemini-api"])
def test_langchain_invokes_streams_and_runs_a_tool_loop(server: EmulatorServer, vertexai: bool) -> None:
    llm = chat(server, MODEL, vertexai)
    assert llm.invoke("hello gemini").content == "Hello from the emulator, Gemini style!"
    assert "".join(str(c.content) for c in llm.stream("tell me a long story")).startswith("Once upon a time")

    agent = chat(server, GEMINI_3, vertexai).bind_tools([get_weather])
    messages: list[object] = [HumanMessage("What is the weather in Paris?")]
    called = agent.invoke(messages)
    [call] = called.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"})
    messages += [called, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    # LangChain sends a tool's text as the function response {"output": …}; a rule's template sees it whole
    assert agent.invoke(messages).text == 'The weather tool says: {"output":"sunny"}'
    [entry] = server.state.journal.entries()[-1:]
    assert (entry.status, entry.warnings) == (200, [])
    assert entry.path.startswith("/api/vertex-ai/v1beta1/publishers/" if vertexai else "/api/vertex-ai/v1/models/")
