"""What the recording tests share: the upstream's scenarios, and a recorder or replay server
started on a folder. The upstream is a second emulator with its own seed and reasoning secret, so
a replay can accept its signatures only as recorded ones."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import FROZEN, MakeServer
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.command import record_settings
from zenmux_emulator.record.store import FILENAME
from zenmux_emulator.settings import Settings

UPSTREAM = """\
rules:
  - name: plain
    match: {last_user: {contains: "plain question"}}
    reply: {content: "You asked: {{ request.last_user }}", usage: {prompt_tokens: 11, completion_tokens: 6}}
  - name: streamed
    match: {last_user: {contains: "stream me"}}
    reply:
      content: "one two three four five six seven eight nine ten"
      stream: {first_token_ms: 150, chunk_ms: 15, chunk_tokens: 2}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false}
    reply:
      reasoning: "The user wants the weather in Paris; I will call get_weather."
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: weather-answer
    match: {tool_result: {name: get_weather}}
    reply: {content: "Paris is {{ request.tool_result.content }} today."}
  - name: limited
    match: {last_user: {contains: "rate limit me"}}
    reply: {error: {status: 429, message: "Slow down", headers: {Retry-After: "7"}}}
  - name: broken
    match: {last_user: {contains: "break the stream"}}
    reply:
      content: "alpha beta gamma delta epsilon"
      stream: {fault: {kind: error, after_chunks: 3, code: "502", message: "the provider went away"}}
  - name: closed
    match: {last_user: {contains: "hang up"}}
    reply: {fault: {kind: close}}
  - name: counting
    match: {last_user: {contains: "count for me"}}
    replies: [{content: "one"}, {content: "two"}]
"""
UPSTREAM_SECRET = "the upstream's own secret"


def upstream(make_server: MakeServer, text: str = UPSTREAM) -> EmulatorServer:
    return make_server(text, seed=99, reasoning_secret=UPSTREAM_SECRET)


@contextmanager
def recorder(upstream_server: EmulatorServer, out: Path, **options: Any) -> Iterator[EmulatorServer]:
    """`zenmux-emulator record --upstream … --out OUT` (the command's own settings), on a free port."""
    given = record_settings({"out": str(out), "upstream": upstream_server.origin, "port": 0, **options})
    with EmulatorServer(Settings(**given)) as server:
        yield server


@contextmanager
def serving(*folders: Path, **options: Any) -> Iterator[EmulatorServer]:
    """`zenmux-emulator serve --scenarios FOLDER…` with the frozen clock and the default seed."""
    settings = Settings(port=0, scenarios=[str(f) for f in folders], clock=FROZEN, watch=False, **options)
    with EmulatorServer(settings) as server:
        yield server


def recorded(out: Path) -> dict[str, Any]:
    """The recorded scenario file, parsed."""
    document: dict[str, Any] = yaml.safe_load((out / FILENAME).read_text(encoding="utf-8"))
    return document


def rule_for(out: Path, words: str, turn: int = 0) -> dict[str, Any]:
    """The one recorded rule whose prompt contains `words`, at that turn."""
    found = [r for r in recorded(out)["rules"] if words in str(r["match"]["last_user"]) and r["match"]["turn"] == turn]
    assert len(found) == 1, found
    return found[0]
