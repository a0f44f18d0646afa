"""pydantic-ai's Anthropic model (pydantic-ai-slim[anthropic], pinned in clients.lock) running an
agent with a tool over the Anthropic face, with the SDK's defaults."""

from __future__ import annotations

from anthropic import AsyncAnthropic
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from tests.clients.helpers import SCENARIO, SONNET
from tests.conftest import MakeServer
from zenmux_emulator.state.sessions import SESSION_HEADER


async def test_an_agent_with_a_tool(make_server: MakeServer, session: str) -> None:
    server = make_server(SCENARIO)
    cities: list[str] = []

    def get_weather(city: str) -> str:
        """The weather in a city."""
        cities.append(city)
        return "sunny"

    async with AsyncAnthropic(
        base_url=server.anthropic_url,
        api_key="sk-ai-v1-pydantic-ai",
        max_retries=0,
        default_headers={SESSION_HEADER: session},
    ) as client:
        model = AnthropicModel(SONNET, provider=AnthropicProvider(anthropic_client=client))
        result = await Agent(model, tools=[get_weather]).run("What is the weather in Paris?")
    assert result.output == "Paris is sunny today."
    assert cities == ["Paris"]
    entries = [e for e in server.state.journal.entries() if e.session == session]
    assert [(e.rule, e.status) for e in entries] == [("call-weather", 200), ("answer-weather", 200)]
