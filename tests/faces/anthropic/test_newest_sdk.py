"""The anthropic SDK with its own defaults (its `anthropic-version`, its betas): plain, streamed, a
thinking + tool loop and the beta tool runner, which keeps its conversation in a message thread.
Then the version rule and threads on the wire."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import SONNET, body, error_of, post
from tests.faces.anthropic.helpers import WEATHER_SCENARIO as SCENARIO
from tests.faces.anthropic.helpers import WEATHER_TOOL as WEATHER
from tests.support.clients import API_KEY
from zenmux_emulator.faces.anthropic.headers import NEWEST, VERSIONS
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

ASK: Any = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(SCENARIO)


def newest(server: EmulatorServer, session: str) -> anthropic.Anthropic:
    """The SDK as a user makes it: no `anthropic-version` of the test's own."""
    return anthropic.Anthropic(
        base_url=server.anthropic_url, api_key=API_KEY, max_retries=0, default_headers={SESSION_HEADER: session}
    )


def entries(server: EmulatorServer, session: str) -> list[Any]:
    return [e for e in server.state.journal.entries() if e.session == session]


def test_the_sdk_s_default_version_is_a_documented_one(server: EmulatorServer, session: str) -> None:
    from anthropic._constants import ANTHROPIC_API_VERSION

    assert ANTHROPIC_API_VERSION in VERSIONS  # a bump of the pin that fails here: add the new version
    with newest(server, session) as client:
        raw = client.messages.with_raw_response.create(
            model=SONNET, max_tokens=256, messages=[{"role": "user", "content": "hello"}]
        )
    assert raw.parse().content[0].text == "Hi there! How can I help?"  # type: ignore[union-attr]
    assert "x-emulator-warnings" not in raw.headers
    [entry] = entries(server, session)
    assert {k.lower(): v for k, v in entry.headers.items()}["anthropic-version"] == ANTHROPIC_API_VERSION


def test_streamed_with_get_final_message(server: EmulatorServer, session: str) -> None:
    with (
        newest(server, session) as client,
        client.messages.stream(model=SONNET, max_tokens=256, messages=[{"role": "user", "content": "hello"}]) as stream,
    ):
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Hi there! How can I help?" and final.content[0].text == "Hi there! How can I help?"  # type: ignore[union-attr]
    assert final.stop_reason == "end_turn"


def test_a_thinking_and_tool_loop(server: EmulatorServer, session: str) -> None:
    thinking: Any = {"type": "enabled", "budget_tokens": 2048}
    with newest(server, session) as client:
        first = client.messages.create(model=SONNET, max_tokens=4096, thinking=thinking, tools=[WEATHER], messages=ASK)
        assert [b.type for b in first.content] == ["thinking", "tool_use"] and first.stop_reason == "tool_use"
        use = first.content[1]
        answer = client.messages.create(
            model=SONNET,
            max_tokens=4096,
            thinking=thinking,
            tools=[WEATHER],
            messages=[
                *ASK,
                {"role": "assistant", "content": first.content},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "sunny"}]},
            ],
        )
    assert answer.content[-1].text == "Paris is sunny today."  # type: ignore[union-attr]
    assert all(e.unmet_expectations == [] and e.status == 200 for e in entries(server, session))


def test_the_beta_tool_runner_with_its_defaults_keeps_a_thread(server: EmulatorServer, session: str) -> None:
    calls: list[str] = []

    @anthropic.beta_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        calls.append(city)
        return "sunny"

    with newest(server, session) as client:
        final = client.beta.messages.tool_runner(
            model=SONNET, max_tokens=1024, tools=[get_weather], messages=ASK
        ).until_done()
    assert calls == ["Paris"]
    assert final.content[-1].text == "Paris is sunny today."  # type: ignore[union-attr]
    first, second = entries(server, session)
    assert (first.status, second.status) == (200, 200) and (first.rule, second.rule) == (
        "call-weather",
        "answer-weather",
    )
    assert first.body["thread"] == {"type": "create"} and "message-threads-2026-08-12" in first.headers.get(
        "anthropic-beta", ""
    )
    # the second turn sent only the tool result; the server added the thread's tools and history
    assert second.body["thread"]["type"] == "continue" and "tools" not in second.body
    assert [m["role"] for m in second.body["messages"]] == ["user"]
    assert second.warnings == [] and first.warnings == []


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_every_documented_version_is_answered_without_a_warning(
    server: EmulatorServer, session: str, version: str
) -> None:
    raw = post(server, body("hello"), session, headers={"anthropic-version": version})
    assert raw.status == 200 and raw.json()["content"][0]["text"] == "Hi there! How can I help?"
    assert "x-emulator-warnings" not in raw.headers


def test_a_later_dated_version_is_answered_as_the_newest_with_a_warning(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("hello"), session, headers={"anthropic-version": "2031-02-28"})
    assert raw.status == 200 and raw.json()["content"][0]["text"] == "Hi there! How can I help?"
    assert raw.headers["x-emulator-warnings"] == (
        f"anthropic-version 2031-02-28: newer than the versions the emulator knows; answered as {NEWEST}"
    )
    counted = post(
        server, body("hello"), session, path="/v1/messages/count_tokens", headers={"anthropic-version": "2031-02-28"}
    )
    assert counted.status == 200 and "2031-02-28" in counted.headers["x-emulator-warnings"]


@pytest.mark.parametrize("version", ["banana", "2026-13-01", "2022-12-31", "2026-10-21T00:00", "20261021"])
def test_a_malformed_or_undocumented_version_is_zenmux_s_400(
    server: EmulatorServer, session: str, version: str
) -> None:
    assert error_of(post(server, body("hello"), session, headers={"anthropic-version": version}), 400) == (
        f"anthropic-version: {version!r} is not a supported version; use 2023-06-01"
    )


# --- threads on the wire --------------------------------------------------------------------------


def _turn1(server: EmulatorServer, session: str) -> dict[str, Any]:
    raw = post(
        server,
        {**body("weather please"), "tools": [WEATHER], "thread": {"type": "create"}, "system": "Be brief."},
        session,
    )
    assert raw.status == 200, raw.text
    return dict(raw.json())


def _result(message: dict[str, Any]) -> dict[str, Any]:
    use = message["content"][-1]
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "rainy"}]}


def test_a_continue_sends_only_the_new_turn(server: EmulatorServer, session: str) -> None:
    first = _turn1(server, session)
    continue_: Any = {"type": "continue", "previous_message_id": first["id"]}
    raw = post(
        server, {"model": SONNET, "max_tokens": 1024, "messages": [_result(first)], "thread": continue_}, session
    )
    assert raw.status == 200, raw.text
    assert raw.json()["content"][0]["text"] == "Paris is rainy today."
    # each reply continues once; a second continue from the same one is refused, naming thread
    again = post(
        server, {"model": SONNET, "max_tokens": 1024, "messages": [_result(first)], "thread": continue_}, session
    )
    assert error_of(again, 400).startswith(f"thread.previous_message_id: message '{first['id']}' has already")


def test_threads_are_per_session_and_refuse_what_they_keep(server: EmulatorServer, session: str) -> None:
    first = _turn1(server, session)
    continue_: Any = {"type": "continue", "previous_message_id": first["id"]}
    elsewhere = post(
        server,
        {"model": SONNET, "max_tokens": 1024, "messages": [_result(first)], "thread": continue_},
        session + "-other",
    )
    assert error_of(elsewhere, 400).startswith(f"thread.previous_message_id: no thread holds message '{first['id']}'")
    resent = post(
        server,
        {"model": SONNET, "max_tokens": 1024, "messages": [_result(first)], "thread": continue_, "tools": [WEATHER]},
        session,
    )
    assert error_of(resent, 400).startswith("tools: a thread keeps the `tools` it was created with")
    for thread, message in [
        ({"type": "fork"}, "thread.type: Input tag must be one of 'create', 'continue'"),
        ({"type": "continue"}, "thread.previous_message_id: Field required"),
        ({"type": "create", "x": 1}, "thread.x: Extra inputs are not permitted"),
    ]:
        assert error_of(post(server, {**body("hello"), "thread": thread}, session), 400) == message
