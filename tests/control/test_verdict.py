"""`GET /_emulator/journal/verdict?session=`: the pytest handle's `verdict()` for any client (the Node helper
reads it), the same findings in process and from the shared journal under `--state`."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.conftest import MakeServer
from tests.state.conftest import redis_server, redis_url  # noqa: F401 - the shared-state tests' real Redis
from tests.support.clients import API_KEY, http
from zenmux_emulator.core.journal.verdict import verdict
from zenmux_emulator.core.spec import readers_of
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SCENARIO = """\
rules:
  - name: call
    match: {last_user: {contains: weather}, tool_result: false}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: busy
    match: {last_user: {contains: busy}}
    reply: {error: {status: 429, message: Slow down, headers: {Retry-After: "30"}}}
"""
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def misbehave(server: EmulatorServer, session: str) -> None:
    """A tool call left unanswered, and a retry at once after a 429 that asked for 30 s."""
    client = openai.OpenAI(
        base_url=server.base_url, api_key=API_KEY, max_retries=0, default_headers={"X-Emulator-Session": session}
    )
    ask = client.chat.completions.create
    ask(model="openai/gpt-5", messages=[{"role": "user", "content": "weather?"}], tools=[TOOL])
    ask(model="openai/gpt-5", messages=[{"role": "user", "content": "something else"}])
    for _ in range(2):
        with pytest.raises(openai.RateLimitError):
            ask(model="openai/gpt-5", messages=[{"role": "user", "content": "busy?"}])


def findings(server: EmulatorServer, session: str) -> list[dict[str, Any]]:
    answer = http(f"{server.origin}/_emulator/journal/verdict?session={session}").json()
    assert answer["session"] == session
    return answer["findings"]


def test_the_route_gives_the_handle_s_findings(make_server: MakeServer):
    server = make_server(SCENARIO)
    misbehave(server, "judged")
    got = findings(server, "judged")
    assert [f["check"] for f in got] == ["tool_calls", "retry_after"]
    assert "get_weather" in got[0]["message"] and "Retry-After" in got[1]["message"]
    live = verdict(server.state.journal.entries(session="judged"), readers_of(server.faces.values()))
    expected = [{"check": f.check, "seq": f.seq, "message": f.message} for f in live]  # the handle's verdict()
    assert got == expected
    assert findings(server, "nobody") == []


def test_the_shared_journal_is_judged_as_the_live_one(make_server: MakeServer, redis_url: str):  # noqa: F811
    live, shared = make_server(SCENARIO), make_server(SCENARIO, state=redis_url)
    misbehave(live, "judged")
    misbehave(shared, "judged")
    strip = lambda found: [(f["check"], f["message"].split("#")[0]) for f in found]  # noqa: E731
    assert strip(findings(shared, "judged")) == strip(findings(live, "judged")) != []


def test_a_verdict_without_a_session_is_refused_naming_it(make_server: MakeServer):
    server = make_server(SCENARIO)
    answer = http(f"{server.origin}/_emulator/journal/verdict")
    assert answer.status == 400 and "session" in answer.json()["error"]["message"]
