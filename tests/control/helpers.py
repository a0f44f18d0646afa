"""Helpers of the control API tests: raw HTTP calls to `/_emulator/...` (errors returned, not raised)."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

YAML = "application/yaml"


def control(
    server: EmulatorServer,
    method: str,
    route: str,
    *,
    json_body: Any = None,
    text: str | None = None,
    content_type: str | None = None,
    headers: dict[str, str] | None = None,
) -> Raw:
    """`method /_emulator/<route>` with a JSON body, a text body (dedented) or none."""
    data: bytes | None = None
    sent = dict(headers or {})
    if json_body is not None:
        data = json.dumps(json_body).encode()
        sent.setdefault("Content-Type", "application/json")
    elif text is not None:
        data = textwrap.dedent(text).encode()
        sent.setdefault("Content-Type", content_type or YAML)
    return http(f"{server.origin}/_emulator/{route}", data, method=method, headers=sent)


def ok(response: Raw, status: int = 200) -> Any:
    """The JSON of a response that must have `status`; otherwise the test fails showing the body."""
    assert response.status == status, f"answered {response.status}: {response.text}"
    return response.json()


def error_of(response: Raw, status: int, type: str) -> dict[str, Any]:
    """The `error` object of a ZenMux-style envelope with this status and type."""
    assert response.status == status, f"answered {response.status}: {response.text}"
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert (error["code"], error["type"]) == (str(status), type), error
    assert error["message"]
    return error
