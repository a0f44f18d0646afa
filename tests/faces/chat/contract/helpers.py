"""Small helpers shared by the contract tests: raw HTTP calls, request bodies, envelope checks."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from email.message import Message
from typing import Any

from tests.conftest import API_KEY
from tests.support.bodies import chat_body
from tests.support.sse import SSEBody, parse_sse
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MODEL = "openai/gpt-5"
CHAT_PATH = "/api/v1/chat/completions"
SESSION_HEADER = "X-Emulator-Session"
ACCESS_DENIED = "You have no permission to access this resource"
HEX32 = r"^[0-9a-f]{32}$"


@dataclass
class RawResponse:
    """What a raw HTTP call got back: status, headers (case-insensitive), the body's exact bytes."""

    status: int
    headers: Message
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def sse(self) -> SSEBody:
        """The body as a strictly framed event stream (the content type is checked first)."""
        assert self.content_type.startswith("text/event-stream"), self.content_type
        return parse_sse(self.body)


def chat(text: str, model: str = MODEL, **fields: Any) -> dict[str, Any]:
    """A valid request body with one user message, `fields` added."""
    return chat_body(text, model, **fields)


def request(
    server: EmulatorServer,
    body: Any = None,
    *,
    method: str = "POST",
    path: str = CHAT_PATH,
    key: str | None = API_KEY,
    session: str | None = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> RawResponse:
    """One HTTP request over a fresh connection. `body` is JSON-encoded unless `raw` bytes are given;
    `key` goes in `Authorization: Bearer` (None sends no key)."""
    sent: dict[str, str] = {}
    if key is not None:
        sent["Authorization"] = f"Bearer {key}"
    if session is not None:
        sent[SESSION_HEADER] = session
    if raw is None and body is not None:
        raw = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=raw, headers=sent)
        response = connection.getresponse()
        return RawResponse(response.status, response.msg, response.read())
    finally:
        connection.close()


def post(server: EmulatorServer, body: Any, **options: Any) -> RawResponse:
    """POST a chat completion request."""
    return request(server, body, **options)


def assert_envelope(response: RawResponse, status: int, type: str, message: str | None = None) -> dict[str, Any]:
    """The response is ZenMux's error envelope and nothing else; returns the inner `error` object."""
    assert response.status == status, (response.status, response.body)
    assert response.content_type.startswith("application/json"), response.content_type
    body = response.json()
    assert list(body) == ["error"], body
    error = body["error"]
    assert set(error) == {"code", "type", "message"}, error
    assert error["code"] == str(status)
    assert error["type"] == type
    assert isinstance(error["message"], str) and error["message"]
    if message is not None:
        assert error["message"] == message
    return error


def content_of(chunks: list[dict[str, Any]]) -> str:
    """The content the stream's deltas add up to."""
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def refusal_of(chunks: list[dict[str, Any]]) -> str:
    """The refusal the stream's deltas add up to."""
    return "".join(c["choices"][0]["delta"].get("refusal") or "" for c in chunks if c["choices"])


def finish_reasons(chunks: list[dict[str, Any]]) -> list[str]:
    """Every non-null finish_reason in the stream, in order."""
    return [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
