"""The Responses face through the official `openai` SDK: create (plain, tools, refusal, reasoning),
stream + get_final_response, parse with a pydantic model, previous_response_id, encrypted
reasoning passed back, and the stored responses (retrieve, delete, input_items)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from tests.faces.responses.helpers import MODEL, WEATHER_TOOL
from tests.support.clients import sdk
from tests.support.openai_schema import assert_response, assert_response_item_list
from zenmux_emulator.pytest_plugin.server import EmulatorServer


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as c:
        yield c


def raw_create(client: openai.OpenAI, **fields: Any) -> tuple[dict[str, Any], Any]:
    """The JSON exactly as sent (checked against OpenAI's schema) and the SDK's parsed object."""
    raw = client.responses.with_raw_response.create(**fields)
    body = raw.http_response.json()
    assert_response(body)
    return body, raw.parse()


def test_a_plain_create(client):
    body, response = raw_create(client, model=MODEL, input="hello there")
    assert response.output_text == "Hi there! How can I help?"
    assert response.status == "completed" and response.object == "response"
    assert response.id.startswith("resp_") and response.model == MODEL
    [message] = response.output
    assert message.type == "message" and message.role == "assistant" and message.id.startswith("msg_")
    usage = response.usage
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens and usage.output_tokens > 0
    assert body["store"] is True and body["tools"] == [] and body["tool_choice"] == "auto"


def test_instructions_and_message_items(client):
    response = client.responses.create(
        model=MODEL,
        instructions="Be brief.",
        input=[
            {"role": "developer", "content": "Answer in English."},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "hello"},
                    {"type": "input_image", "image_url": "https://example.com/cat.png"},
                ],
            },
        ],
    )
    assert response.output_text == "Hi there! How can I help?"
    assert response.instructions == "Be brief."


def test_a_refusal(client):
    body, response = raw_create(client, model=MODEL, input="something forbidden")
    assert body["output"][0]["content"] == [{"type": "refusal", "refusal": "I can't help with that."}]
    assert response.output_text == ""


def test_the_tool_loop_with_the_history_sent_again(client):
    first = client.responses.create(model=MODEL, input="weather in Paris?", tools=[WEATHER_TOOL])
    [call] = first.output
    assert call.type == "function_call" and call.name == "get_weather" and call.arguments == '{"city":"Paris"}'
    assert call.call_id.startswith("call_") and call.id.startswith("fc_")
    history = [
        {"role": "user", "content": "weather in Paris?"},
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21C"},
    ]
    body, second = raw_create(client, model=MODEL, input=history, tools=[WEATHER_TOOL], store=False)
    assert second.output_text == "Turn 1: Sunny, 21C"
    assert body["store"] is False
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(second.id)


def test_previous_response_id_continues_the_conversation(client):
    first = client.responses.create(model=MODEL, input="weather in Paris?", tools=[WEATHER_TOOL])
    call = first.output[0]
    second = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        tools=[WEATHER_TOOL],
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "Rain"}],
    )
    assert second.output_text == "Turn 1: Rain"  # the earlier turn counts, and the tool's name is found
    assert second.previous_response_id == first.id
    third = client.responses.create(model=MODEL, previous_response_id=second.id, input="what did I say?")
    assert third.output_text == "You said: weather in Paris?"


def test_an_unknown_previous_response_id_is_a_400(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=MODEL, previous_response_id="resp_nope", input="hello")
    assert caught.value.body == {
        "code": "400",
        "type": "invalid_params",
        "message": "Previous response with id 'resp_nope' not found.",
    }


def test_stream_and_get_final_response(client):
    with client.responses.stream(model=MODEL, input="hello", tools=[WEATHER_TOOL]) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert final.output_text == "Hi there! How can I help?"
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert kinds.count("response.output_text.delta") == 8  # a token each
    assert client.responses.retrieve(final.id).output_text == final.output_text


def test_a_streamed_tool_call(client):
    with client.responses.stream(model=MODEL, input="weather?", tools=[WEATHER_TOOL]) as stream:
        deltas = "".join(e.delta for e in stream if e.type == "response.function_call_arguments.delta")
        final = stream.get_final_response()
    assert deltas == final.output[0].arguments == '{"city":"Paris"}'


def test_a_custom_tool_call(client):
    tools = [{"type": "custom", "name": "apply_patch", "description": "Apply a patch"}]
    _, response = raw_create(client, model=MODEL, input="patch it", tools=tools)
    [call] = response.output
    assert call.type == "custom_tool_call" and call.name == "apply_patch" and call.input == "*** Begin Patch"


class Weather(BaseModel):
    city: str
    temperature: float
    conditions: list[str]


def test_parse_with_a_pydantic_model_gets_valid_unscripted_json(client):
    parsed = client.responses.parse(model=MODEL, input="Describe the weather somewhere.", text_format=Weather)
    weather = parsed.output_parsed
    assert isinstance(weather, Weather) and weather.city
    again = client.responses.parse(model=MODEL, input="Describe the weather somewhere.", text_format=Weather)
    assert again.output_parsed == weather  # seeded by the conversation


def test_json_object_gets_a_json_object(client):
    response = client.responses.create(model=MODEL, input="any json please", text={"format": {"type": "json_object"}})
    assert isinstance(json.loads(response.output_text), dict)


def test_max_output_tokens_leaves_the_response_incomplete(client):
    _, response = raw_create(client, model=MODEL, input="tell me a long story", max_output_tokens=16)
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    (message,) = [item for item in response.output if item.type == "message"]
    assert message.status == "incomplete"
    assert response.usage.output_tokens == 16


def test_reasoning_summary_and_encrypted_content_pass_back(client):
    asked = {"reasoning": {"effort": "low", "summary": "auto"}, "include": ["reasoning.encrypted_content"]}
    first = client.responses.create(model=MODEL, input="weather in Paris?", tools=[WEATHER_TOOL], **asked)
    reasoning, call = first.output
    assert reasoning.type == "reasoning" and reasoning.id.startswith("rs_")
    assert reasoning.summary[0].text and reasoning.encrypted_content.startswith("gAAAAA")
    assert first.usage.output_tokens_details.reasoning_tokens == 2048
    history = [
        {"role": "user", "content": "weather in Paris?"},
        reasoning.model_dump(exclude_none=True),
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "Fog"},
    ]
    second = client.responses.create(model=MODEL, input=history, tools=[WEATHER_TOOL], **asked)
    assert second.output[-1].content[0].text == "Turn 1: Fog"

    tampered = copy.deepcopy(history)
    tampered[1]["encrypted_content"] = tampered[1]["encrypted_content"][:-8] + "AAAAAAAA"
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=MODEL, input=tampered, tools=[WEATHER_TOOL], **asked)
    assert caught.value.body["type"] == "invalid_params"
    assert caught.value.status_code == 400 and caught.value.body["code"] == "400"
    # the path names the offending item in this face's own terms, as ZenMux's answer does on every face
    assert caught.value.body["message"] == (
        f"input.1.encrypted_content: The encrypted content for item {reasoning.id} could not be verified."
    )


def test_reasoning_without_summary_or_include_shows_neither(client):
    response = client.responses.create(model=MODEL, input="ponder this")
    reasoning, message = response.output
    assert reasoning.summary == [] and reasoning.encrypted_content is None
    assert message.content[0].text == "Forty-two."


def test_retrieve_input_items_and_delete(client, server):
    created = client.responses.create(
        model=MODEL, input=[{"role": "user", "content": "hello"}, {"role": "user", "content": "hello again"}]
    )
    raw = client.responses.with_raw_response.retrieve(created.id)
    assert_response(raw.http_response.json())
    assert raw.parse().model_dump() == created.model_dump()
    listed = client.responses.input_items.with_raw_response.list(created.id)
    assert_response_item_list(listed.http_response.json())
    items = listed.parse().data
    assert [item.content[0].text for item in items] == ["hello again", "hello"]  # newest first
    asc = client.responses.input_items.list(created.id, order="asc", limit=1)
    assert [item.content[0].text for item in asc.data] == ["hello"] and asc.has_more
    client.responses.delete(created.id)
    for call in (client.responses.retrieve, client.responses.delete, client.responses.input_items.list):
        with pytest.raises(openai.NotFoundError) as caught:
            call(created.id)
        assert caught.value.body == {
            "code": "404",
            "type": "invalid_request_error",
            "message": f"Response with id '{created.id}' not found.",
        }


def test_stored_responses_belong_to_their_session(client, server):
    created = client.responses.create(model=MODEL, input="hello")
    with sdk(server, "another-session") as other, pytest.raises(openai.NotFoundError):
        other.responses.retrieve(created.id)


async def test_the_async_client(server, session):
    from tests.support.clients import async_sdk

    async with async_sdk(server, session) as client:
        response = await client.responses.create(model=MODEL, input="hello")
        assert response.output_text == "Hi there! How can I help?"
        stream = await client.responses.create(model=MODEL, input="hello", stream=True)
        texts = [event.delta async for event in stream if event.type == "response.output_text.delta"]
        assert "".join(texts) == response.output_text
