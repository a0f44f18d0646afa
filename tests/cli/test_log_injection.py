"""Issue 31, item 9: the text log writes what a client sent (the decoded path, the session) with its
control characters escaped, so `%0d%0a` in a path cannot forge a log line: on a face's route, a
404, a 403 and under `/_emulator/`."""

from __future__ import annotations

import http.client
import socket
from typing import Any

from tests.cli.test_cli import PYTHON_M, SHIPPED, serve  # noqa: F401  (serve: the fixture)

FORGED = "2026-01-01 00:00:00,000 INFO emulator.access: POST /api/v1/chat/completions 200"
PATHS = [
    "/api/v1/chat/completions%0d%0a" + FORGED.replace(" ", "%20"),
    "/nowhere%0a" + FORGED.replace(" ", "%20"),
    "/_emulator/health%0d%0a" + FORGED.replace(" ", "%20"),
    "/api/v1/models%E2%80%A8" + FORGED.replace(" ", "%20"),
]


def send(port: int, method: str, path: str, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, b"{}", {"Content-Type": "application/json", **headers})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_a_forged_log_line_is_escaped_in_the_text_log(serve: Any):  # noqa: F811
    served = serve(
        [
            *PYTHON_M,
            "serve",
            "--port",
            "0",
            "--scenarios",
            str(SHIPPED),
            "--no-watch",
            "--api-key",
            "sk-right",
            "--log-format",
            "text",
            "--log-level",
            "info",
        ]
    ).wait_listening()
    statuses = [send(served.port, "POST", path, {"Authorization": "Bearer sk-right"}) for path in PATHS]
    statuses.append(send(served.port, "POST", PATHS[0], {"Authorization": "Bearer sk-wrong"}))  # a 403
    assert served.stop() == 0
    assert set(statuses) == {404}, statuses  # no route has such a path: answered by the router
    lines = served.stderr().splitlines()
    assert not [line for line in lines if line.startswith("2026-01-01 00:00:00,000")], lines
    escaped = [line for line in lines if "\\x0d\\x0a2026-01-01" in line or "\\x0a2026-01-01" in line]
    assert len(escaped) >= 4, lines
    assert any("\\u2028" in line for line in lines), lines


MALFORMED = [
    b"GET /%zz%s%d?key=AIza-secret-5678 HTTP/1.1 %s%d\r\nHost: x\r\n\r\n",  # a request line aiohttp refuses, holding `%`
    b"G%sT /%(x)s HTTP/1.1\r\nHost: x\r\n\r\n",  # a method that is not one, with `%s` and `%(x)s`
    b"GET / HTTP/1.1\r\nHost: x\r\nAuthorization Bearer sk-secret-1234%s\r\n\r\n",  # a header line without ':'
]


def send_raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
        return reply


def test_a_malformed_request_holding_a_percent_sign_is_logged_on_one_line(serve: Any):  # noqa: F811
    """Issue 40, item 8: aiohttp's own 400 for such a request was logged with the client's bytes as
    the format string: "--- Logging error ---", a stack, and the line lost."""
    served = serve(
        [*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch", "--log-level", "info"]
    ).wait_listening()
    replies = [send_raw(served.port, data) for data in MALFORMED]
    assert served.stop() == 0
    assert [reply.split(b" ", 2)[1] for reply in replies] == [b"400"] * len(MALFORMED), replies
    text = served.stderr()
    assert "Logging error" not in text and "Traceback" not in text, text
    lines = [line for line in text.splitlines() if "malformed HTTP request" in line]
    assert len(lines) == len(MALFORMED), text
    assert not [line for line in text.splitlines() if line.startswith((" ", "\t"))], text  # no stack below
    assert "sk-secret-1234" not in text and "AIza-secret-5678" not in text, text
