"""Helpers of the Responses face tests: raw calls, a strict reader of its typed event stream, and
checks of every body and event against OpenAI's schemas."""

from __future__ import annotations

import json
from typing import Any

from tests.faces.chat.contract.helpers import RawResponse, request
from tests.support.openai_schema import assert_response, assert_response_event
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PATH = "/api/v1/responses"
MODEL = "openai/gpt-5"
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Return the weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


def post(server: EmulatorServer, body: Any, **options: Any) -> RawResponse:
    """POST to /api/v1/responses."""
    return request(server, body, path=PATH, **options)


def events_of(raw: bytes) -> list[dict[str, Any]]:
    """Parse strictly: every event is `event: <type>` then `data: <json>` of that type, ended by a
    blank line; sequence numbers count from 0; each event matches OpenAI's schema for its type."""
    text = raw.decode("utf-8")
    assert "\r" not in text and text.endswith("\n\n"), text[-40:]
    events = []
    for block in text[:-2].split("\n\n"):
        if block.startswith(":"):
            continue  # a keep-alive comment
        name, data = block.split("\n")
        assert name.startswith("event: ") and data.startswith("data: "), block
        event = json.loads(data[len("data: ") :])
        assert event["type"] == name[len("event: ") :], block
        assert event["sequence_number"] == len(events), (event["sequence_number"], len(events))
        assert_response_event(event)
        events.append(event)
    return events


def streamed(server: EmulatorServer, body: dict[str, Any], **options: Any) -> list[dict[str, Any]]:
    """The events of a streamed request (200, text/event-stream), every one checked."""
    response = post(server, {**body, "stream": True}, **options)
    assert response.status == 200, response.body
    assert response.content_type.startswith("text/event-stream"), response.content_type
    return events_of(response.body)


def created(server: EmulatorServer, body: dict[str, Any], **options: Any) -> dict[str, Any]:
    """The response object of a non-streamed request (200), checked against OpenAI's schema."""
    response = post(server, body, **options)
    assert response.status == 200, response.body
    answer = response.json()
    assert_response(answer)
    return answer


def text_of(response: dict[str, Any]) -> str:
    """The output text of a response object, as the SDK's `output_text` joins it."""
    return "".join(
        part["text"]
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )
