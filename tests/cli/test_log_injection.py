"""Issue 31, item 9: the text log writes what a client sent (the decoded path, the session) with its
control characters escaped, so `%0d%0a` in a path cannot forge a log line: on a face's route, a
404, a 403 and under `/_emulator/`."""

from __future__ import annotations

import http.client
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
