"""A value a newer SDK sends and the emulator does not know yet is accepted, ignored and named in
X-Emulator-Warnings, on every face: reasoning efforts, Responses `include` values and item types.
What is not of the field's type is still the face's 400."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import body as messages_body
from tests.faces.anthropic.helpers import error_of
from tests.faces.anthropic.helpers import post as post_messages
from tests.faces.chat.contract.helpers import assert_envelope
from tests.faces.chat.contract.helpers import post as post_chat
from tests.faces.responses.helpers import post as post_responses
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SCENARIO = """\
rules:
  - name: any
    reply: {content: "ok"}
"""
MODEL = "openai/gpt-5"


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(SCENARIO)


def warnings_of(raw: Any) -> str:
    assert raw.status == 200, raw.body if hasattr(raw, "body") else raw.text
    return str(raw.headers["x-emulator-warnings"])


@pytest.mark.parametrize("effort", [{"reasoning_effort": "ultra"}, {"reasoning": {"effort": "ultra"}}])
def test_chat_takes_a_newer_effort(server: EmulatorServer, effort: dict[str, Any]) -> None:
    raw = post_chat(server, {"model": MODEL, "messages": [{"role": "user", "content": "x"}], **effort})
    name = "reasoning_effort" if "reasoning_effort" in effort else "reasoning.effort"
    assert f"{name} 'ultra': not an effort the emulator knows; reasoning as for 'medium'" in warnings_of(raw)
    assert raw.json()["choices"][0]["message"]["content"] == "ok"
    refused = post_chat(server, {"model": MODEL, "messages": [{"role": "user", "content": "x"}], "reasoning_effort": 3})
    assert_envelope(refused, 400, "invalid_params")


def test_responses_takes_newer_include_values_efforts_and_item_types(server: EmulatorServer) -> None:
    raw = post_responses(
        server,
        {
            "model": MODEL,
            "include": ["reasoning.encrypted_content", "shell_call.output"],
            "reasoning": {"effort": "ultra"},
            "input": [
                {
                    "type": "local_shell_call",
                    "id": "lsh_1",
                    "call_id": "call_1",
                    "status": "completed",
                    "action": {"type": "exec", "command": ["ls"]},
                },
                {"role": "user", "content": "x"},
            ],
        },
    )
    warnings = warnings_of(raw)
    assert "include 'shell_call.output': not a value the emulator knows; ignored" in warnings
    assert "reasoning.effort 'ultra': not an effort the emulator knows" in warnings
    assert "input[0]: local_shell_call items are kept but not read" in warnings
    assert "reasoning.encrypted_content" not in warnings
    assert raw.json()["output"][-1]["content"][0]["text"] == "ok"
    for bad in ({"include": [5]}, {"input": [{"type": 5}]}, {"reasoning": {"effort": 1}}):
        assert_envelope(post_responses(server, {"model": MODEL, "input": "x", **bad}), 400, "invalid_params")


def test_messages_takes_a_newer_effort(server: EmulatorServer, session: str) -> None:
    raw = post_messages(server, messages_body("x", output_config={"effort": "ludicrous"}), session)
    assert "output_config.effort 'ludicrous': not an effort the emulator knows" in raw.headers["x-emulator-warnings"]
    assert raw.json()["content"][0]["text"] == "ok"
    assert error_of(post_messages(server, messages_body("x", output_config={"effort": 2}), session), 400)
