"""While a served scenario file is broken, every answer says so (issue 42): the last good rules
answer with a warning in `X-Emulator-Warnings` naming the file and line; fixing the file removes it.
The log shows the problem's code frame on lines of their own, not one line with escaped breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeServer
from tests.scenarios.test_reload import BROKEN, edit_until, rules, scenario_file
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

WARNINGS = "x-emulator-warnings"


def hello(server: EmulatorServer) -> Raw:
    body = {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hi"}]}
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
    answer = http(server.url("chat") + "/chat/completions", json.dumps(body).encode(), method="POST", headers=headers)
    assert answer.status == 200, answer.text
    return answer


def test_a_broken_file_is_said_in_every_answer_until_it_is_fixed(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = make_server(rules("v1"), watch=True)
    path: Path = scenario_file(server)
    assert WARNINGS not in hello(server).headers

    assert edit_until(path, BROKEN, lambda: WARNINGS in hello(server).headers), "the broken file was never said"
    answer = hello(server)
    assert answer.json()["choices"][0]["message"]["content"] == "v1"  # the last good rules
    warning = answer.headers[WARNINGS]
    assert f"{path}:3" in warning and "the last good rules" in warning, warning
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("emulator")]
    assert not any("\n" in message for message in logged)
    assert any("finish_reason" in message and "|" in message for message in logged), logged  # the code frame

    assert edit_until(path, rules("v2"), lambda: hello(server).json()["choices"][0]["message"]["content"] == "v2")
    assert WARNINGS not in hello(server).headers
