"""Raw HTTP for the gateway tests: chat requests with any headers, and the control API."""

from __future__ import annotations

import json
import socket
from typing import Any

from tests.support.bodies import chat_body
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "openai/gpt-5.4-mini"
CHAT = "/api/v1/chat/completions"


def chat(text: str = "hello", model: str = MODEL, **fields: Any) -> dict[str, Any]:
    return chat_body(text, model, **fields)


def post(
    server: EmulatorServer,
    session: str,
    body: dict[str, Any] | None = None,
    *,
    key: str = API_KEY,
    headers: dict[str, str] | None = None,
) -> Raw:
    sent = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {key}",
        SESSION_HEADER: session,
        **(headers or {}),
    }
    return http(server.origin + CHAT, json.dumps(body or chat()).encode(), method="POST", headers=sent)


def advance(server: EmulatorServer, seconds: float) -> None:
    answer = http(
        server.origin + "/_emulator/clock",
        json.dumps({"advance": seconds}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    assert answer.status == 200, answer.text


def reset(server: EmulatorServer, session: str) -> None:
    answer = http(
        server.origin + "/_emulator/sessions/reset",
        json.dumps({"session": session}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    assert answer.status == 200, answer.text


def socket_post(server: EmulatorServer, session: str, headers: dict[str, str] | None = None) -> bytes:
    """POST over a bare socket; everything received until the server closed (b"" when it sent nothing)."""
    payload = json.dumps(chat()).encode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (
        f"POST {CHAT} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {API_KEY}\r\n{SESSION_HEADER}: {session}\r\n{extra}"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    received = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as sock:
        sock.sendall(head + payload)
        try:
            while piece := sock.recv(65536):
                received += piece
        except ConnectionResetError:
            pass
    return received
