"""Helpers of the failure tests: raw socket HTTP that survives cut connections, and journal waits."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.bodies import chat_body
from tests.support.clients import API_KEY
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "openai/gpt-5.4-mini"
CHAT = "/api/v1/chat/completions"


def chat(text: str, **fields: Any) -> dict[str, Any]:
    return chat_body(text, MODEL, **fields)


@dataclass
class Wire:
    """Everything a raw socket read until the server closed: the head, and the de-chunked body."""

    raw: bytes
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunked_complete: bool | None = None  # for chunked bodies: whether the 0-size terminator arrived

    @property
    def data_events(self) -> list[str]:
        """Every `data: ` payload, in order (comments skipped)."""
        return [
            block[len("data: ") :] for block in self.body.decode("utf-8").split("\n\n") if block.startswith("data: ")
        ]


def _dechunk(data: bytes) -> tuple[bytes, bool]:
    out = b""
    while True:
        line_end = data.find(b"\r\n")
        if line_end < 0:
            return out, False
        size = int(data[:line_end].split(b";")[0], 16)
        if size == 0:
            return out, True
        start = line_end + 2
        piece = data[start : start + size]
        out += piece
        if len(piece) < size or data[start + size : start + size + 2] != b"\r\n":
            return out, False
        data = data[start + size + 2 :]


def wire_post(server: EmulatorServer, body: dict[str, Any], session: str, *, timeout: float = 15.0) -> Wire:
    """POST over a bare socket and read until the server closes (or resets: ConnectionResetError escapes)."""
    payload = json.dumps(body).encode()
    head = (
        f"POST {CHAT} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {API_KEY}\r\n{SESSION_HEADER}: {session}\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(head + payload)
        received = b""
        while True:
            piece = sock.recv(65536)
            if not piece:
                break
            received += piece
    wire = Wire(raw=received)
    if not received:
        return wire
    head_bytes, _, rest = received.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    wire.status = int(lines[0].split()[1])
    wire.headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    if wire.headers.get("transfer-encoding", "").lower() == "chunked":
        wire.body, wire.chunked_complete = _dechunk(rest)
    else:
        wire.body = rest
    return wire


def finished(server: EmulatorServer, session: str, count: int = 1, *, within: float = 10.0) -> list[JournalEntry]:
    """The session's chat entries once `count` of them are finished (their duration recorded)."""
    deadline = time.monotonic() + within
    while True:
        entries = server.state.journal.entries(session=session, path=CHAT)
        done = [e for e in entries if e.duration_ms is not None]
        if len(done) >= count or time.monotonic() > deadline:
            return done
        time.sleep(0.02)
