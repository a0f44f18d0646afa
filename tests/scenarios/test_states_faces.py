"""Issue 37 item 1: the same three-rule flow (started → tool_called → done) answers on chat,
Anthropic, Responses and Vertex through their official SDKs, each client in its own session."""

from __future__ import annotations

from collections.abc import Callable

import anthropic
from google import genai
from google.genai import types

from tests.conftest import API_KEY, MakeServer
from tests.scenarios.test_states import FLOW
from tests.state.helpers import control
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

THREE = ["calling the tool", "it is sunny", "anything else?"]
PROMPT = "what is the weather?"


def chat(server: EmulatorServer, session: str) -> Callable[[], str]:
    client = sdk(server, session)
    return lambda: str(
        client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": PROMPT}])
        .choices[0]
        .message.content
    )


def responses(server: EmulatorServer, session: str) -> Callable[[], str]:
    client = sdk(server, session)
    return lambda: client.responses.create(model="openai/gpt-5", input=PROMPT).output_text


def claude(server: EmulatorServer, session: str) -> Callable[[], str]:
    client = anthropic.Anthropic(
        base_url=server.anthropic_url, api_key=API_KEY, max_retries=0, default_headers={SESSION_HEADER: session}
    )

    def said() -> str:
        message = client.messages.create(
            model="anthropic/claude-sonnet-4.5", max_tokens=64, messages=[{"role": "user", "content": PROMPT}]
        )
        return "".join(block.text for block in message.content if block.type == "text")

    return said


def vertex(server: EmulatorServer, session: str) -> Callable[[], str]:
    options = types.HttpOptions(base_url=server.url("vertex"), api_version="v1", headers={SESSION_HEADER: session})
    client = genai.Client(api_key=API_KEY, vertexai=True, http_options=options)
    return lambda: str(client.models.generate_content(model="google/gemini-2.5-pro", contents=PROMPT).text)


def test_the_flow_answers_in_order_on_every_face(make_server: MakeServer):
    server = make_server(FLOW)
    for face in (chat, responses, claude, vertex):
        ask = face(server, face.__name__)
        assert [ask() for _ in range(4)] == [*THREE, THREE[-1]], face.__name__
    listed = control(server.origin, "states").json()["scenarios"]["agent"]["sessions"]
    assert {session: standing["state"] for session, standing in listed.items()} == dict.fromkeys(
        ("chat", "responses", "claude", "vertex"), "done"
    )
