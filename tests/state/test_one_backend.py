"""Issue 25, item 3: one state interface, two implementations (in process, and Redis under
`--state`). What a session keeps, its reply positions and the objects its faces stored (Responses'
stored responses, Anthropic's message threads), is restarted by `POST /_emulator/sessions/reset`
the same way with either; other sessions keep theirs."""

from __future__ import annotations

import json

import pytest

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import WEATHER_SCENARIO, WEATHER_TOOL, body, post
from tests.state.helpers import SCENARIO, ask, content, control
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RESPONSES = "/api/v1/responses"


@pytest.fixture(params=["in process", "shared"])
def server(request: pytest.FixtureRequest, make_server: MakeServer) -> EmulatorServer:
    if request.param == "shared":
        return make_server(SCENARIO, WEATHER_SCENARIO, state=request.getfixturevalue("redis_url"))
    return make_server(SCENARIO, WEATHER_SCENARIO)


def respond(server: EmulatorServer, session: str, payload: dict[str, object], path: str = "") -> Raw:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}", "X-Emulator-Session": session}
    data = json.dumps(payload).encode() if payload else None
    return http(server.origin + RESPONSES + path, data, method="POST" if payload else "GET", headers=headers)


def stored_response(server: EmulatorServer, session: str) -> str:
    created = respond(server, session, {"model": "openai/gpt-5.4-mini", "input": "remember me"})
    assert created.status == 200, created.text
    return str(created.json()["id"])


def thread(server: EmulatorServer, session: str) -> dict[str, object]:
    """A thread's first reply in the session, and the request that continues it."""
    first = post(server, {**body("weather please"), "tools": [WEATHER_TOOL], "thread": {"type": "create"}}, session)
    assert first.status == 200, first.text
    use = first.json()["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "foggy"}]}
    return {
        **body("x"),
        "messages": [result],
        "thread": {"type": "continue", "previous_message_id": first.json()["id"]},
    }


def test_health_names_the_state_chosen_at_start_up(server: EmulatorServer, request: pytest.FixtureRequest):
    assert control(server.origin, "health").json()["state"] == request.node.callspec.params["server"]


def test_a_reset_forgets_the_sessions_positions_responses_and_threads_and_no_other(server: EmulatorServer):
    gone, kept = stored_response(server, "gone"), stored_response(server, "kept")
    follow_gone, follow_kept = thread(server, "gone"), thread(server, "kept")
    assert content(ask(server.origin, "gone", "step")) == "one"
    assert control(server.origin, "sessions/reset", {"session": "gone"}).json() == {"session": "gone", "reset": 1}

    assert content(ask(server.origin, "gone", "step")) == "one"
    assert respond(server, "gone", {}, f"/{gone}").status == 404
    refused = respond(server, "gone", {"model": "openai/gpt-5.4-mini", "input": "x", "previous_response_id": gone})
    assert refused.status == 400 and gone in refused.json()["error"]["message"]
    assert post(server, follow_gone, "gone").status == 400

    assert respond(server, "kept", {}, f"/{kept}").status == 200
    continued = post(server, follow_kept, "kept")
    assert continued.status == 200, continued.text
    assert continued.json()["content"][-1]["text"] == "Paris is foggy today."


def test_resetting_every_session_forgets_every_stored_response(server: EmulatorServer):
    ids = {session: stored_response(server, session) for session in ("one", "two")}
    assert control(server.origin, "sessions/reset", {}).json() == {"session": None, "reset": 2}
    assert [respond(server, session, {}, f"/{rid}").status for session, rid in ids.items()] == [404, 404]
