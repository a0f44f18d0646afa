"""What the Anthropic face's tests share: SDK clients, raw requests, and SSE parsed as named events."""

from __future__ import annotations

import json
from typing import Any

import anthropic

from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

VERSION = {"anthropic-version": "2023-06-01"}
"""The version ZenMux's docs name (the SDK's own default is tested in test_newest_sdk.py)."""
SONNET = "anthropic/claude-sonnet-4.5"

WEATHER_SCENARIO = """\
rules:
  - name: greeting
    match: {last_user: {contains: hello}}
    reply: {content: "Hi there! How can I help?"}
  - name: call-weather
    match: {tools: [get_weather], tool_result: false}
    reply:
      reasoning: "The user wants the weather; I will call get_weather for Paris."
      tool_calls:
        - {name: get_weather, arguments: {city: Paris}}
  - name: answer-weather
    match: {tool_result: {name: get_weather}}
    expect: {reasoning_intact: true}
    reply:
      reasoning: "The tool said {{ request.tool_result.content }}."
      content: "Paris is {{ request.tool_result.content }} today."
"""
"""A greeting and a weather tool loop (thinking passed back), shared by the SDK and client tests."""
WEATHER_TOOL: Any = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def sdk(server: EmulatorServer, session: str, **options: Any) -> anthropic.Anthropic:
    """The official SDK on the face, in its own session; `api_key` unless `auth_token` is given."""
    if "auth_token" not in options:
        options.setdefault("api_key", API_KEY)
    options.setdefault("max_retries", 0)
    return anthropic.Anthropic(
        base_url=server.anthropic_url, default_headers={**VERSION, SESSION_HEADER: session}, **options
    )


def async_sdk(server: EmulatorServer, session: str, **options: Any) -> anthropic.AsyncAnthropic:
    if "auth_token" not in options:
        options.setdefault("api_key", API_KEY)
    options.setdefault("max_retries", 0)
    return anthropic.AsyncAnthropic(
        base_url=server.anthropic_url, default_headers={**VERSION, SESSION_HEADER: session}, **options
    )


def body(text: str, model: str = SONNET, **fields: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 1024, "messages": [{"role": "user", "content": text}], **fields}


def post(
    server: EmulatorServer,
    payload: Any,
    session: str = "tests",
    *,
    path: str = "/v1/messages",
    headers: dict[str, str] | None = None,
    auth: bool = True,
) -> Raw:
    """A raw POST to the face (`x-api-key` and the version unless `headers` replace them)."""
    sent = {"Content-Type": "application/json", SESSION_HEADER: session, **VERSION}
    if auth:
        sent["x-api-key"] = API_KEY
    sent.update(headers or {})
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return http(server.anthropic_url + path, data, method="POST", headers=sent)


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The stream as (event name, data) pairs; each event is exactly `event: …\\ndata: …\\n\\n`."""
    assert text.endswith("\n\n"), text[-200:]
    out = []
    for raw in text[:-2].split("\n\n"):
        name_line, data_line = raw.split("\n")
        assert name_line.startswith("event: ") and data_line.startswith("data: "), raw
        data = json.loads(data_line[len("data: ") :])
        assert data["type"] == name_line[len("event: ") :]
        out.append((data["type"], data))
    return out


def error_of(raw: Raw, status: int, type: str = "invalid_params") -> str:
    """The message of ZenMux's envelope, after checking status, code and type."""
    assert raw.status == status, raw.text
    error = raw.json()["error"]
    assert (error["code"], error["type"]) == (str(status), type)
    return str(error["message"])
