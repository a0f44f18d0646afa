"""Clients every test folder uses: the official SDK in an emulator session, and raw stdlib HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import openai

from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

API_KEY = "sk-ai-v1-test-key"


def sdk(
    server: EmulatorServer,
    session: str,
    *,
    max_retries: int = 0,
    api_key: str = API_KEY,
    headers: dict[str, str] | None = None,
) -> openai.OpenAI:
    """An official SDK client on `server`, in its own emulator session."""
    return openai.OpenAI(
        base_url=server.base_url,
        api_key=api_key,
        max_retries=max_retries,
        default_headers={SESSION_HEADER: session, **(headers or {})},
    )


def async_sdk(
    server: EmulatorServer, session: str, *, max_retries: int = 0, api_key: str = API_KEY
) -> openai.AsyncOpenAI:
    """The async SDK client, likewise."""
    return openai.AsyncOpenAI(
        base_url=server.base_url, api_key=api_key, max_retries=max_retries, default_headers={SESSION_HEADER: session}
    )


@dataclass
class Raw:
    """A raw HTTP answer: status, lower-cased headers, body text."""

    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def http(url: str, data: bytes | None = None, *, method: str = "GET", headers: dict[str, str] | None = None) -> Raw:
    """One stdlib HTTP request; error statuses are returned, not raised."""
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Raw(
                response.status, {k.lower(): v for k, v in response.headers.items()}, response.read().decode("utf-8")
            )
    except urllib.error.HTTPError as error:
        with error:
            return Raw(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode("utf-8"))
