"""LangChain's ChatAnthropic (langchain-anthropic, pinned in clients.lock) with its defaults and a
tool: the model calls it, the tool's result goes back, the model answers from it."""

from __future__ import annotations

from langchain_anthropic import ChatAnthropic
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from tests.clients.helpers import SCENARIO, SONNET
from tests.conftest import MakeServer
from zenmux_emulator.state.sessions import SESSION_HEADER


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny" if city == "Paris" else "unknown"


def test_chat_anthropic_calls_a_tool_and_answers(make_server: MakeServer, session: str) -> None:
    server = make_server(SCENARIO)
    model = ChatAnthropic(
        model_name=SONNET,
        base_url=server.anthropic_url,
        api_key="sk-ai-v1-langchain",
        max_retries=0,
        default_headers={SESSION_HEADER: session},
        timeout=60,
        stop=None,
    )
    assert model.invoke([HumanMessage("hello")]).content == "Hi there! How can I help?"
    chat = model.bind_tools([get_weather])
    history = [HumanMessage("What is the weather in Paris?")]
    called = chat.invoke(history)
    [call] = called.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"})
    history += [called, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    answer = chat.invoke(history)
    assert answer.text == "Paris is sunny today."
    entries = [e for e in server.state.journal.entries() if e.session == session]
    assert [(e.rule, e.status) for e in entries] == [("greeting", 200), ("call-weather", 200), ("answer-weather", 200)]
    assert all(e.warnings == [] for e in entries), [e.warnings for e in entries]
