"""The Interactions face's test scenario and clients: google-genai's `client.interactions`, raw HTTP."""

from __future__ import annotations

from typing import Any

import orjson
from google import genai
from google.genai import types

from tests.conftest import API_KEY
from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "google/gemini-omni-flash"
SCENARIO = """\
rules:
  - name: capital
    match: {last_user: {contains: capital of France}}
    reply: {content: "The capital of France is Paris."}
  - name: pirate
    match: {api: interactions, system: {contains: pirate}}
    reply: {content: "Arr, {{ request.last_user }}"}
  - name: thinker
    match: {last_user: {contains: think first}}
    reply: {reasoning: "Weighing it up.", content: "Thought it through."}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: weather-answer
    match: {tool_result: {name: get_weather}}
    reply: {content: "The weather tool says: {{ request.tool_result.json.forecast }}"}
  - name: busy
    match: {last_user: {contains: too busy}}
    reply: {error: {status: 429, message: "Slow down"}}
  - name: failing
    match: {last_user: {contains: fail mid-stream}}
    reply:
      content: "one two three four five six"
      stream: {fault: {after_chunks: 3, kind: error, code: "502", message: "Upstream provider failed"}}
  - name: picture
    match: {last_user: {contains: this picture}}
    reply: {content: "A kite."}
"""
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def client(server: EmulatorServer, session: str, api_key: str = API_KEY) -> genai.Client:
    """google-genai as it reaches ZenMux's `/api/v1/interactions`: base URL `…/api`, api_version v1."""
    options = types.HttpOptions(
        base_url=server.url("interactions"), api_version="v1", headers={SESSION_HEADER: session}
    )
    return genai.Client(api_key=api_key, vertexai=False, http_options=options)


def post(
    server: EmulatorServer,
    body: object,
    *,
    session: str = "raw",
    key: str | None = API_KEY,
    path: str = "/v1/interactions",
) -> Raw:
    headers = {"Content-Type": "application/json", SESSION_HEADER: session}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return http(server.url("interactions") + path, orjson.dumps(body), method="POST", headers=headers)


def ask(text: str, **more: Any) -> dict[str, Any]:
    return {"model": MODEL, "input": text, **more}


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of a stream, each its `event:` name and its `data`."""
    found: list[tuple[str, dict[str, Any]]] = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        found.append((lines["event"], orjson.loads(lines["data"])))
    return found
