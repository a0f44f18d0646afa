"""A server over the rules the Responses face tests share (tests isolate by session header)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FROZEN
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

RULES = """
rules:
  - name: hello
    match: {last_user: {contains: hello}}
    reply: {content: "Hi there! How can I help?"}
  - name: refuse
    match: {last_user: {contains: forbidden}}
    reply: {refusal: "I can't help with that."}
  - name: think
    match: {last_user: {contains: ponder}}
    reply: {reasoning: "Weighing the options carefully.", content: "Forty-two."}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false, last_user: {contains: weather}}
    reply:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: weather-answer
    match: {tool_result: {name: get_weather}, turn: 1}
    reply: {content: "Turn {{ request.turn }}: {{ request.tool_result.content }}"}
  - name: patch-call
    match: {tools: [apply_patch], last_user: {contains: patch}}
    reply:
      tool_calls: [{name: apply_patch, type: custom, input: "*** Begin Patch"}]
  - name: remember
    match: {last_user: {contains: "what did I say"}, turn: 2}
    reply: {content: "You said: {{ request.messages[0].content }}"}
  - name: chatty-stream
    match: {last_user: {contains: "slowly"}}
    reply:
      content: "one two three four"
      stream: {first_token_ms: 50, chunk_ms: 10}
  - name: broken-stream
    match: {last_user: {contains: "break"}}
    reply:
      content: "one two three four five six"
      stream: {fault: {kind: error, after_chunks: 5, code: server_error, message: "upstream went away"}}
  - name: only-responses
    match: {api: responses, last_user: {contains: "which face"}}
    reply: {content: "responses face"}
  - name: only-chat
    match: {api: chat, last_user: {contains: "which face"}}
    reply: {content: "chat face"}
"""


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    folder: Path = tmp_path_factory.mktemp("responses")
    (folder / "rules.yaml").write_text(textwrap.dedent(RULES), encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False)) as started:
        yield started
