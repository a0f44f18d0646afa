"""scenarios/states.yaml (issue 37 item 6): an agent loop as a state machine, an outage that
recovers and a quota that refills, through the openai SDK, the clock moved through the control API."""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest

from tests.conftest import FROZEN, SHIPPED
from tests.state.helpers import control
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

MODEL = "openai/gpt-5"
TOOLS = [{"type": "function", "function": {"name": "search_flights", "parameters": {"type": "object"}}}]


@pytest.fixture
def server() -> Iterator[EmulatorServer]:
    settings = Settings(port=0, scenarios=[str(SHIPPED / "states.yaml")], clock=FROZEN, watch=False)
    with EmulatorServer(settings) as served:
        yield served


def say(client: openai.OpenAI, text: str) -> str:
    return str(
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": text}])
        .choices[0]
        .message.content
    )


def test_the_agent_loop_calls_the_tool_answers_from_its_result_and_starts_over(server: EmulatorServer):
    client = sdk(server, "agent")
    messages: list[dict[str, object]] = [{"role": "user", "content": "plan my trip to Lisbon"}]
    called = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
    assert called.tool_calls and called.tool_calls[0].function.name == "search_flights"
    call = called.tool_calls[0]
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"cheapest": "9:40"})},
    ]
    answer = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
    assert answer.content == "The 9:40 flight to Lisbon is the cheapest: 89 EUR."
    assert say(client, "plan my trip").startswith("Your trip is planned")
    again = client.chat.completions.create(model=MODEL, messages=messages[:1], tools=TOOLS).choices[0].message
    assert again.tool_calls  # the loop started over


def test_the_outage_lasts_sixty_seconds_of_the_emulators_clock(server: EmulatorServer):
    client = sdk(server, "outage")
    assert say(client, "provider status") == "The provider is up."
    with pytest.raises(openai.InternalServerError) as broken:
        say(client, "break the provider")
    assert broken.value.status_code == 503 and broken.value.response.headers["retry-after"] == "60"
    with pytest.raises(openai.InternalServerError):
        say(client, "provider status")
    assert control(server.origin, "clock", {"advance": 61}).status == 200
    assert say(client, "provider status") == "The provider is up."


def test_the_quota_refills_after_its_window(server: EmulatorServer):
    client = sdk(server, "quota")
    assert say(client, "use my quota") == "Done: one request left in this window."
    assert say(client, "use my quota") == "Done: the quota is spent until the window refills."
    with pytest.raises(openai.RateLimitError):
        say(client, "use my quota")
    control(server.origin, "clock", {"advance": 30})
    with pytest.raises(openai.RateLimitError):
        say(client, "use my quota")
    control(server.origin, "clock", {"advance": 30})
    assert say(client, "use my quota") == "Done: one request left in this window."
