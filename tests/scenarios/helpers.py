"""Helpers of the scenario tests: openai SDK calls that report which rule answered, and raw HTTP."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion

from tests.support.clients import API_KEY, Raw, http, sdk
from zenmux_emulator.core.rules import compile as loader
from zenmux_emulator.pytest_plugin.server import EmulatorServer

__all__ = ["Raw", "sdk"]  # re-exported for the scenario tests

MODEL = "openai/gpt-5.4-mini"
SESSION_HEADER = "X-Emulator-Session"
RULE_HEADER = "X-Emulator-Rule"


@dataclass
class Answer:
    """A non-streamed answer: the rule that gave it (None for the default reply) and the completion."""

    rule: str | None
    completion: ChatCompletion

    @property
    def content(self) -> str | None:
        return self.completion.choices[0].message.content


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def ask(
    client: openai.OpenAI,
    text: str | None = None,
    *,
    messages: list[dict[str, Any]] | None = None,
    model: str = MODEL,
    **kwargs: Any,
) -> Answer:
    """Send one chat completion (the text as a single user message, or `messages`)."""
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=messages if messages is not None else user(text or ""), **kwargs
    )
    return Answer(raw.headers.get(RULE_HEADER), raw.parse())


def ask_stream(
    client: openai.OpenAI,
    text: str | None = None,
    *,
    messages: list[dict[str, Any]] | None = None,
    model: str = MODEL,
    **kwargs: Any,
) -> tuple[str | None, str, list[str | None]]:
    """Stream one chat completion: (rule, joined content, finish reasons seen)."""
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=messages if messages is not None else user(text or ""), stream=True, **kwargs
    )
    parts: list[str] = []
    finishes: list[str | None] = []
    with raw.parse() as stream:
        for chunk in stream:
            for choice in chunk.choices:
                if choice.delta.content:
                    parts.append(choice.delta.content)
                if choice.finish_reason:
                    finishes.append(choice.finish_reason)
    return raw.headers.get(RULE_HEADER), "".join(parts), finishes


def post_chat(server: EmulatorServer, body: dict[str, Any], headers: dict[str, str] | None = None) -> Raw:
    """A raw `POST /api/v1/chat/completions` (stdlib only), errors returned rather than raised."""
    return http(
        server.base_url + "/chat/completions",
        json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json", **(headers or {})},
    )


def get(url: str) -> Raw:
    """A raw GET, errors returned rather than raised."""
    return http(url)


def get_json(url: str) -> Any:
    """GET a JSON document; any status but 200 fails the test with the body shown."""
    response = get(url)
    assert response.status == 200, f"GET {url} answered {response.status}: {response.text}"
    return response.json()


EXPLODE = "{{ explode }}"
"""A template that `break_loading` makes the loader fail on."""
INTERNALS = "internal detail that must stay in the log"


def break_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make compiling a template that contains `EXPLODE` raise a RuntimeError, as a bug of the loader
    would: the one seam of the tests of unexpected load failures. No real scenario is known to do it
    (each fault found so far is a located problem), so one is put where a compile step runs."""
    compile_template = loader.compile_template

    def failing(source: str) -> object:
        if EXPLODE in source:
            raise RuntimeError(INTERNALS)
        return compile_template(source)

    monkeypatch.setattr(loader, "compile_template", failing)
