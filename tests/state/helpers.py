"""Requests for the shared-state tests: raw HTTP to any instance, so each may go to another one."""

from __future__ import annotations

import json
from typing import Any

from tests.support.bodies import chat_body
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.state.sessions import SESSION_HEADER

CHAT = "/api/v1/chat/completions"

SCENARIO = """
rules:
  - name: flaky
    match: {last_user: {contains: flaky}}
    replies:
      - error: {status: 429, type: rate_limit}
      - error: {status: 429, type: rate_limit}
      - content: at last
  - name: steps
    match: {last_user: {contains: step}}
    replies: [{content: one}, {content: two}, {content: three}]
    then: repeat_last
"""

LIMITED = """
settings:
  limits: {rpm: 3, window_s: 60}
"""


def ask(origin: str, session: str, text: str, *, key: str = API_KEY, model: str = "openai/gpt-5.4-mini") -> Raw:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}", SESSION_HEADER: session}
    return http(origin + CHAT, json.dumps(chat_body(text, model)).encode(), method="POST", headers=headers)


def control(origin: str, path: str, body: Any = None, method: str | None = None, **headers: str) -> Raw:
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    sent = {"Content-Type": "application/json", **headers}
    return http(origin + "/_emulator/" + path, data, method=method or ("GET" if data is None else "POST"), headers=sent)


def content(answer: Raw) -> str:
    assert answer.status == 200, answer.text
    return str(answer.json()["choices"][0]["message"]["content"])
