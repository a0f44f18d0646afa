"""The Vertex AI / Gemini face's test scenario and clients: google-genai on either path form, raw HTTP."""

from __future__ import annotations

from typing import Any

import orjson
from google import genai
from google.genai import types

from tests.conftest import API_KEY
from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "google/gemini-2.5-pro"
GEMINI_3 = "google/gemini-3.1-pro-preview"
SCENARIO = """\
rules:
  - name: greeting
    match: {last_user: {contains: hello gemini}}
    reply:
      reasoning: "The user greets me; a short greeting back."
      content: "Hello from the emulator, Gemini style!"
  - name: weather-call
    match: {tools: [get_weather], tool_result: false, last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: weather-answer
    match: {tool_result: {name: get_weather}}
    reply: {content: "The weather tool says: {{ request.tool_result.json.result | default(request.tool_result.content) }}"}
  - name: refusal
    match: {last_user: {contains: forbidden}}
    reply: {refusal: "I can't help with that."}
  - name: busy
    match: {last_user: {contains: too busy}}
    reply: {error: {status: 429, message: "Slow down"}}
  - name: long
    match: {last_user: {contains: long story}}
    reply: {content: "Once upon a time there was a gateway that spoke every dialect of the machines."}
"""


def client(server: EmulatorServer, session: str, *, vertexai: bool, api_key: str = API_KEY) -> genai.Client:
    """google-genai as ZenMux's docs set it up: `vertexai=True` with api_version v1 (the
    `v1/publishers/…` form), or `vertexai=False` (the Gemini API's `v1beta/models/…` form)."""
    options = types.HttpOptions(
        base_url=server.url("vertex"), api_version="v1" if vertexai else "v1beta", headers={SESSION_HEADER: session}
    )
    return genai.Client(api_key=api_key, vertexai=vertexai, http_options=options)


def post(
    server: EmulatorServer, path: str, body: object, *, headers: dict[str, str] | None = None, key: str | None = API_KEY
) -> Raw:
    sent = {"Content-Type": "application/json", **({"x-goog-api-key": key} if key else {}), **(headers or {})}
    return http(server.url("vertex") + path, orjson.dumps(body), method="POST", headers=sent)


def ask(text: str, **more: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}], **more}
