"""Connections a client opens and then neglects: a header that never ends, an idle keep-alive
connection, more connections than the server may hold, and bytes that are not HTTP. Each is
answered by behaviour (closed, refused, answered 400, logged on one line), never by a timing."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from tests.conftest import MakeServer
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
WAIT = 15.0  # the longest any of these waits for the server to act: far past the timeouts set here
HEAD = b"POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
BODY = json.dumps({"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hi"}]}).encode()
REQUEST = (
    HEAD
    + b"Authorization: Bearer sk-test\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(BODY)}\r\n\r\n".encode()
    + BODY
)


def connect(server: EmulatorServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes the connection (what it sends first, if anything, is read past)."""
    try:
        while chunk := sock.recv(65536):
            if not chunk:
                break
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return True


def answer(sock: socket.socket) -> bytes:
    """One whole response on a kept-alive connection: its head and its Content-Length of body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_client_that_never_finishes_its_header_is_disconnected(make_server: MakeServer):
    server = make_server(RULES, header_timeout=1.0)
    with connect(server) as slow:
        slow.sendall(HEAD)  # and never the rest
        assert closed_by_server(slow)
    with connect(server) as fine:  # a whole request in time is served as ever
        fine.sendall(REQUEST)
        assert answer(fine).startswith(b"HTTP/1.1 200")


def test_a_kept_alive_connection_left_idle_is_closed(make_server: MakeServer):
    server = make_server(RULES, idle_timeout=1.0)
    with connect(server) as sock:
        sock.sendall(REQUEST)
        assert answer(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(REQUEST)  # kept alive: a second request on it is served
        assert answer(sock).startswith(b"HTTP/1.1 200")
        assert closed_by_server(sock)  # then nothing: closed


def test_past_the_connection_cap_the_longest_waiting_idle_connection_makes_room(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
):
    server = make_server(RULES, max_connections=8, header_timeout=60)
    caplog.set_level(logging.INFO)
    slow = [connect(server) for _ in range(8)]
    try:
        for sock in slow:
            sock.sendall(HEAD)
        with connect(server) as fine:  # the ninth: the cap makes room for it
            fine.sendall(REQUEST)
            assert answer(fine).startswith(b"HTTP/1.1 200")
        assert closed_by_server(slow[0])  # the one that waited longest
        slow[-1].settimeout(0.5)
        assert not closed_by_server(slow[-1])  # the others are still there
    finally:
        for sock in slow:
            sock.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("connection cap of 8 reached" in message for message in warnings), warnings


def test_a_connection_busy_with_a_request_is_never_the_one_closed(make_server: MakeServer):
    streaming = "rules:\n  - name: slow\n    reply: {content: a b c, stream: {first_token_ms: 1500}}\n"
    server = make_server(streaming, max_connections=2, header_timeout=60)
    body = json.dumps({"model": "openai/gpt-5", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    with connect(server) as busy, connect(server) as idle:
        busy.sendall(
            HEAD
            + b"Authorization: Bearer sk-test\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
        )
        assert busy.recv(65536).startswith(b"HTTP/1.1 200")  # the stream has begun: a request in progress
        idle.sendall(HEAD)
        with connect(server) as third:  # the cap: the idle one makes room, the streaming one goes on
            third.sendall(REQUEST)
            assert answer(third).startswith(b"HTTP/1.1 200")
        assert closed_by_server(idle)
        streamed = b""
        while b"data: [DONE]" not in streamed:
            chunk = busy.recv(65536)
            assert chunk, "the streaming connection was closed"
            streamed += chunk


@pytest.mark.parametrize(
    "garbage",
    [
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
    ],
    ids=["not HTTP", "a header line without a colon", "a request line too long"],
)
def test_malformed_http_is_answered_400_and_logged_on_one_line(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture, garbage: bytes
):
    server = make_server(RULES)
    caplog.set_level(logging.DEBUG)
    with connect(server) as sock:
        sock.sendall(garbage)
        reply = sock.recv(65536)
    assert reply.split(b" ", 2)[1] == b"400", reply
    served = [r for r in caplog.records if r.name.startswith("aiohttp") or r.name.startswith("emulator")]
    assert not [r for r in served if r.levelno >= logging.ERROR], [r.getMessage() for r in served]
    assert not [r for r in served if r.exc_info], [r.getMessage() for r in served]
    [line] = [r for r in served if "malformed HTTP request" in r.getMessage()]
    assert line.levelno == logging.INFO and "\n" not in line.getMessage()
