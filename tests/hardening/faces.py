"""The faces as the hardening tests and the fuzz suite drive them: the route, a minimal valid
body, how to put a tool (or anything else) into it, and the face's error envelope.

The faces and their order come from the registry (`faces/shipped.py`), each route under its face's
base path; a shipped face whose replies carry tool calls (it registers verdict readers) and has no
fuzz target here fails the import, so a new face cannot be left out of the suite unnoticed."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson

from tests.support.clients import API_KEY
from zenmux_emulator.faces.shipped import FACES as SHIPPED
from zenmux_emulator.pytest_plugin.server import EmulatorServer

Headers = list[tuple[str, str | bytes]]
QUERY_MODEL = {
    "models": [{"id": "openai/gpt-5-nano", "mode": "generate", "weight": {"type": "static", "weight": 1}}],
    "weight": {"type": "static"},
}


@dataclass(frozen=True)
class Face:
    """One wire API: where it listens, a body it accepts, and the shape of its errors."""

    name: str
    path: str
    """The route under the face's base path (`FaceSpec.base_path`)."""
    valid: Callable[[], dict[str, Any]]
    with_tool: Callable[[dict[str, Any]], dict[str, Any]]
    """A valid body offering one function tool with these `parameters`, its call forced."""
    headers: tuple[tuple[str, str], ...] = ()
    """What every request of this face carries besides the key and the JSON content type."""
    with_format: Callable[[dict[str, Any]], dict[str, Any]] = lambda schema: {}
    """A valid body asking for structured output of this JSON Schema."""

    @property
    def route(self) -> str:
        return BASE_PATHS[self.name] + self.path

    def envelope(self, status: int, body: bytes) -> dict[str, Any]:
        """The error object of a 4xx answer in this face's envelope (an AssertionError otherwise)."""
        data = orjson.loads(body)
        if self.name == "objectiveai":
            assert data.keys() == {"kind", "error"} and data["kind"] == "query", data
            error = data["error"]
            assert isinstance(error["kind"], str) and isinstance(error["error"], str) and error["error"], data
            return {"type": error["kind"], "message": error["error"]}
        return zenmux_error(status, data)


def zenmux_error(status: int, data: Any) -> dict[str, Any]:
    """The `error` of ZenMux's envelope `{"error": {"code", "type", "message"}}` with this status."""
    assert isinstance(data, dict) and isinstance(data.get("error"), dict), data
    error = data["error"]
    assert error["code"] == str(status), data
    assert isinstance(error["type"], str) and isinstance(error["message"], str) and error["message"], data
    return dict(error)


def structured_text(face: Face, body: bytes) -> str:
    """The text of a structured-output answer on each face."""
    data = orjson.loads(body)
    if face.name in ("chat", "objectiveai"):
        return str(data["choices"][0]["message"]["content"])
    if face.name == "anthropic":
        return str(next(b["text"] for b in data["content"] if b["type"] == "text"))
    if face.name == "vertex":
        return "".join(p["text"] for p in data["candidates"][0]["content"]["parts"] if not p.get("thought"))
    if face.name == "interactions":
        return str(next(s["content"][0]["text"] for s in data["steps"] if s["type"] == "model_output"))
    return str(next(c["text"] for i in data["output"] if i["type"] == "message" for c in i["content"]))


def _chat() -> dict[str, Any]:
    return {"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": "hi"}]}


def _anthropic() -> dict[str, Any]:
    return {"model": "anthropic/claude-sonnet-4", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}


def _responses() -> dict[str, Any]:
    return {"model": "openai/gpt-5.4-mini", "input": "hi"}


def _objectiveai() -> dict[str, Any]:
    return {"model": QUERY_MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _vertex() -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


def _interactions() -> dict[str, Any]:
    return {"model": "google/gemini-omni-flash", "input": "hi"}


TARGETS = (
    Face(
        "chat",
        "/chat/completions",
        _chat,
        lambda p: {
            **_chat(),
            "tools": [{"type": "function", "function": {"name": "f", "parameters": p}}],
            "tool_choice": "required",
        },
        with_format=lambda s: {
            **_chat(),
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": s}},
        },
    ),
    Face(
        "anthropic",
        "/v1/messages",
        _anthropic,
        lambda p: {**_anthropic(), "tools": [{"name": "f", "input_schema": p}], "tool_choice": {"type": "any"}},
        (("anthropic-version", "2023-06-01"),),
        with_format=lambda s: {**_anthropic(), "output_config": {"format": {"type": "json_schema", "schema": s}}},
    ),
    Face(
        "responses",
        "/responses",
        _responses,
        lambda p: {
            **_responses(),
            "tools": [{"type": "function", "name": "f", "parameters": p}],
            "tool_choice": "required",
        },
        with_format=lambda s: {**_responses(), "text": {"format": {"type": "json_schema", "name": "x", "schema": s}}},
    ),
    Face(
        "objectiveai",
        "/query/completions",
        _objectiveai,
        lambda p: {**_objectiveai(), "tools": [{"type": "function", "function": {"name": "f", "parameters": p}}]},
        with_format=lambda s: {
            **_objectiveai(),
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": s}},
        },
    ),
    Face(
        "vertex",
        "/v1beta/models/google/gemini-2.5-pro:generateContent",
        _vertex,
        lambda p: {
            **_vertex(),
            "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": p}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
        with_format=lambda s: {
            **_vertex(),
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": s},
        },
    ),
    Face(
        "interactions",
        "/v1/interactions",
        _interactions,
        lambda p: {
            **_interactions(),
            "tools": [{"type": "function", "name": "f", "parameters": p}],
            "generation_config": {"tool_choice": "any"},
        },
        with_format=lambda s: {
            **_interactions(),
            "response_format": {"type": "text", "mime_type": "application/json", "schema": s},
        },
    ),
)
BASE_PATHS = {spec.name: spec.base_path for spec in SHIPPED}
_BY_NAME = {face.name: face for face in TARGETS}
_UNFUZZED = sorted(spec.name for spec in SHIPPED if spec.readers is not None and spec.name not in _BY_NAME)
assert not _UNFUZZED, f"shipped faces with tool calls but no fuzz target: {_UNFUZZED}"
FACES = tuple(_BY_NAME[spec.name] for spec in SHIPPED if spec.name in _BY_NAME)
"""The fuzzed faces, in the order the app registers them."""
FACE_IDS = [face.name for face in FACES]


def conversation(face: Face, items: int, parts: int = 1) -> dict[str, Any]:
    """A valid body of `items` turns, the first holding `parts` text parts (the others one)."""
    if face.name == "responses":
        turns = [{"role": "user", "content": [{"type": "input_text", "text": "hi there"}] * parts}]
        turns += [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}] * (items - 1)
        return {**face.valid(), "input": turns}
    if face.name == "vertex":
        contents = [{"role": "user", "parts": [{"text": "hi there"}] * parts}]
        contents += [{"role": "user", "parts": [{"text": "hi"}]}] * (items - 1)
        return {**face.valid(), "contents": contents}
    if face.name == "interactions":
        steps = [{"type": "user_input", "content": [{"type": "text", "text": "hi there"}] * parts}]
        steps += [{"type": "user_input", "content": [{"type": "text", "text": "hi"}]}] * (items - 1)
        return {**face.valid(), "input": steps}
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi there"}] * parts}]
    messages += [{"role": "assistant" if i % 2 == 0 else "user", "content": "hi"} for i in range(items - 1)]
    return {**face.valid(), "messages": messages}


class Wire:
    """Raw HTTP on one kept-alive connection: any header bytes, any body, statuses returned."""

    def __init__(self, server: EmulatorServer, timeout: float = 30) -> None:
        parts = urlsplit(server.origin)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def send(
        self, method: str, path: str, body: bytes = b"", headers: Headers | None = None, *, key: bool = True
    ) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            try:
                self.conn.putrequest(method, path, skip_accept_encoding=True)
                sent = list(headers or [])
                if key and not any(name.lower() in ("authorization", "x-api-key") for name, _ in sent):
                    sent.append(("Authorization", f"Bearer {API_KEY}"))
                for name, value in sent:
                    self.conn.putheader(name, value)
                self.conn.putheader("Content-Length", str(len(body)))
                self.conn.endheaders(body)
                response = self.conn.getresponse()
                data = response.read()
                answer = response.status, {k.lower(): v for k, v in response.getheaders()}, data
                if response.will_close:
                    self.close()
                return answer
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def post_json(self, path: str, body: Any, headers: Headers | None = None) -> tuple[int, dict[str, str], bytes]:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return self.send("POST", path, raw, [("Content-Type", "application/json"), *(headers or [])])

    def ask(self, face: Face, body: Any, headers: Headers | None = None) -> tuple[int, dict[str, str], bytes]:
        """POST `body` to the face's route with the face's headers."""
        return self.post_json(face.route, body, [*face.headers, *(headers or [])])

    def close(self) -> None:
        self.conn.close()
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
