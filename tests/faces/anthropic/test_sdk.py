"""The official anthropic SDK, sync and async, against the face: plain, streamed, a tool loop
with thinking passed back (and tampered with), count_tokens and the models routes."""

from __future__ import annotations

import re
from typing import Any

import anthropic
import pytest

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import SONNET, async_sdk, sdk
from tests.faces.anthropic.helpers import WEATHER_SCENARIO as SCENARIO
from tests.faces.anthropic.helpers import WEATHER_TOOL as WEATHER
from zenmux_emulator.pytest_plugin.server import EmulatorServer

THINKING: Any = {"type": "enabled", "budget_tokens": 2048}
HELLO: Any = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(SCENARIO)


@pytest.mark.parametrize("credential", ["api_key", "auth_token"])
def test_plain_message_with_either_credential(server: EmulatorServer, session: str, credential: str) -> None:
    with sdk(server, session, **{credential: "sk-ai-v1-test-key"}) as client:
        message = client.messages.create(model=SONNET, max_tokens=256, messages=HELLO)
    assert message.type == "message" and message.role == "assistant"
    assert message.id.startswith("msg_")
    assert message.model == SONNET
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == "Hi there! How can I help?"  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn" and message.stop_sequence is None
    assert message.usage.output_tokens > 0 and message.usage.input_tokens > 0
    assert message.usage.cache_read_input_tokens == 0 and message.usage.cache_creation_input_tokens == 0
    assert message.usage.service_tier == "standard"


def test_stream_helper_and_final_message(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client, client.messages.stream(model=SONNET, max_tokens=256, messages=HELLO) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Hi there! How can I help?"
    assert final.content[0].text == text  # type: ignore[union-attr]
    assert final.stop_reason == "end_turn"
    with sdk(server, session) as client:
        plain = client.messages.create(model=SONNET, max_tokens=256, messages=HELLO)
    assert final.usage.output_tokens == plain.usage.output_tokens
    assert final.usage.input_tokens == plain.usage.input_tokens


def tool_loop(client: anthropic.Anthropic, tamper: bool = False) -> anthropic.types.Message:
    asked: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
    with client.messages.stream(
        model=SONNET, max_tokens=4096, thinking=THINKING, tools=[WEATHER], messages=asked
    ) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    assert [b.type for b in first.content] == ["thinking", "tool_use"]
    thinking, call = first.content
    assert thinking.thinking == "The user wants the weather; I will call get_weather for Paris."  # type: ignore[union-attr]
    assert call.id.startswith("toolu_") and call.name == "get_weather"  # type: ignore[union-attr]
    assert call.input == {"city": "Paris"}  # type: ignore[union-attr]
    sent: list[Any] = [b.model_dump(exclude_none=True) for b in first.content]
    if tamper:
        sent[0]["thinking"] += " (edited)"
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "sunny"}  # type: ignore[union-attr]
    return client.messages.create(
        model=SONNET,
        max_tokens=4096,
        thinking=THINKING,
        tools=[WEATHER],
        messages=[*asked, {"role": "assistant", "content": sent}, {"role": "user", "content": [result]}],
    )


def test_two_turn_tool_loop_with_thinking_passed_back(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        second = tool_loop(client)
    assert [b.type for b in second.content] == ["thinking", "text"]
    assert second.content[1].text == "Paris is sunny today."  # type: ignore[union-attr]
    assert second.stop_reason == "end_turn"
    [entry] = [e for e in server.state.journal.entries() if e.rule == "answer-weather"]
    assert entry.unmet_expectations == [] and entry.api == "anthropic"


def test_a_tampered_thinking_block_is_refused(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client, pytest.raises(anthropic.BadRequestError) as caught:
        tool_loop(client, tamper=True)
    assert caught.value.status_code == 400
    assert caught.value.body == {
        "error": {
            "code": "400",
            "type": "invalid_params",
            "message": "messages.1.content.0: Invalid `signature` in `thinking` block",
        }
    }


async def test_async_client_plain_and_streamed(server: EmulatorServer, session: str) -> None:
    async with async_sdk(server, session, auth_token="sk-ai-v1-test-key") as client:
        message = await client.messages.create(model=SONNET, max_tokens=256, messages=HELLO)
        async with client.messages.stream(model=SONNET, max_tokens=256, messages=HELLO) as stream:
            pieces = [text async for text in stream.text_stream]
            final = await stream.get_final_message()
    assert message.content[0].text == "Hi there! How can I help?"  # type: ignore[union-attr]
    assert "".join(pieces) == message.content[0].text  # type: ignore[union-attr]
    assert len(pieces) > 1
    assert final.model_dump(exclude={"id"}) == message.model_dump(exclude={"id"})


def test_count_tokens_is_the_input_tokens_of_the_same_request(server: EmulatorServer, session: str) -> None:
    asked: Any = [{"role": "user", "content": "hello, how many tokens is this?"}]
    with sdk(server, session) as client:
        counted = client.messages.count_tokens(model=SONNET, messages=asked, tools=[WEATHER], system="Be brief.")
        message = client.messages.create(
            model=SONNET, max_tokens=64, messages=asked, tools=[WEATHER], system="Be brief."
        )
    assert counted.input_tokens == message.usage.input_tokens > 0


def test_models_list_and_retrieve_from_the_catalogue(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        page = client.models.list(limit=2)
        everything = list(client.models.list(limit=2))
        one = client.models.retrieve(SONNET)
        with pytest.raises(anthropic.NotFoundError):
            client.models.retrieve("acme/nothing")
    assert len(page.data) == 2 and page.has_more is True
    assert page.first_id == page.data[0].id and page.last_id == page.data[1].id
    ids = [m.id for m in everything]
    assert SONNET in ids and len(ids) == len(set(ids)) == 112  # the SDK followed the pages: ZenMux's catalogue
    with sdk(server, session) as client:
        assert [m.id for m in client.models.list()] == ids  # 20 a page by default, the same order
    assert one.id == SONNET and one.type == "model" and one.display_name == "Anthropic: Claude Sonnet 4.5"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(one.created_at))  # ZenMux's shape: a date, not RFC 3339


def test_chat_s_anthropic_reasoning_verifies_as_a_thinking_block(server: EmulatorServer, session: str) -> None:
    """One signer: reasoning minted on chat for anthropic/* passes back on this face as a thinking block."""
    import openai

    tools_chat: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER["input_schema"]}}]
    with openai.OpenAI(
        base_url=server.base_url,
        api_key="sk-ai-v1-test-key",
        max_retries=0,
        default_headers={"X-Emulator-Session": session},
    ) as chat:
        completion = chat.chat.completions.create(
            model=SONNET,
            tools=tools_chat,
            messages=[{"role": "user", "content": "Weather in Paris?"}],
            extra_body={"reasoning": {"enabled": True}},
        )
    message: Any = completion.choices[0].message
    [detail] = message.reasoning_details
    [call] = message.tool_calls
    blocks: Any = [
        {"type": "thinking", "thinking": detail["text"], "signature": detail["signature"]},
        {"type": "tool_use", "id": call.id, "name": "get_weather", "input": {"city": "Paris"}},
    ]
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "sunny"}
    with sdk(server, session) as client:
        answer = client.messages.create(
            model=SONNET,
            max_tokens=4096,
            thinking=THINKING,
            tools=[WEATHER],
            messages=[
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": blocks},
                {"role": "user", "content": [result]},
            ],
        )
    assert answer.content[-1].text == "Paris is sunny today."  # type: ignore[union-attr]
