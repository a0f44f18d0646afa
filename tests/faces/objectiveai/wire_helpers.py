"""Driving the ObjectiveAI face of a real server: openai-python at `/objectiveai`, and raw HTTP."""

from __future__ import annotations

import copy
import json
from typing import Any

import openai

from tests.support.clients import API_KEY, Raw, http
from tests.support.sse import SSEBody, parse_sse
from zenmux_emulator.faces.objectiveai import ids
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

from .examples import CREATED

ROUTE = "/query/completions"


def client(
    server: EmulatorServer, session: str, *, api_key: str = API_KEY, headers: dict[str, str] | None = None
) -> openai.OpenAI:
    """openai-python pointed at the face, in its own emulator session."""
    return openai.OpenAI(
        base_url=server.objectiveai_url,
        api_key=api_key,
        max_retries=0,
        default_headers={SESSION_HEADER: session, **(headers or {})},
    )


def query(server: EmulatorServer, session: str, body: dict[str, Any], **options: Any) -> Any:
    """A unary Query completion through the SDK, as a dict."""
    with client(server, session, **options) as c:
        return c.post(ROUTE, body=body, cast_to=object)


def stream(server: EmulatorServer, session: str, body: dict[str, Any], **options: Any) -> list[Any]:
    """A streamed Query completion through the SDK: every item, as dicts."""
    with client(server, session, **options) as c:
        items = c.post(
            ROUTE, body={**body, "stream": True}, cast_to=object, stream=True, stream_cls=openai.Stream[object]
        )
        return list(items)


def raw(
    server: EmulatorServer,
    session: str | None,
    body: Any,
    *,
    path: str = ROUTE,
    method: str = "POST",
    headers: dict[str, str] | None = None,
    api_key: str | None = API_KEY,
) -> Raw:
    """One raw HTTP request to the face."""
    sent = {"Content-Type": "application/json", **(headers or {})}
    if session is not None:
        sent[SESSION_HEADER] = session
    if api_key is not None:
        sent["Authorization"] = f"Bearer {api_key}"
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    return http(server.objectiveai_url + path, data, method=method, headers=sent)


def raw_sse(server: EmulatorServer, session: str, body: dict[str, Any], **options: Any) -> tuple[Raw, SSEBody]:
    answer = raw(server, session, {**body, "stream": True}, **options)
    return answer, parse_sse(answer.text.encode())


def with_id(expected: dict[str, Any], rid: str) -> dict[str, Any]:
    """An example's expected body under the emulator's response id (metadata ids follow it, §7)."""
    out = copy.deepcopy(expected)
    for choice in out["choices"]:
        meta = choice["completion_metadata"]
        meta["id"] = (
            rid if meta["id"] == expected["id"] else f"gen-{CREATED}-" + ids.hash_id(f"{rid}/{choice['index']}")[:20]
        )
    out["id"] = rid
    return out


def error_of(answer: Raw, status: int, kind: str) -> str:
    """The `error` text of a `{"kind": "query", "error": {"kind": K, "error": TEXT}}` answer."""
    assert answer.status == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body = answer.json()
    assert set(body) == {"kind", "error"} and body["kind"] == "query", body
    assert set(body["error"]) == {"kind", "error"} and body["error"]["kind"] == kind, body
    return str(body["error"]["error"])
