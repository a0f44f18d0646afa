"""What the shared request path gives every face, seen through this one: pacing, stream faults,
scripted errors and sequences, chaos and control headers, limits, routing and fallback,
expectations, near misses and the journal; one rule answering a chat and an Anthropic client
alike, and `api:` narrowing a rule to one face."""

from __future__ import annotations

import time
import urllib.request

import anthropic
import openai
import pytest

from tests.conftest import API_KEY, MakeServer
from tests.faces.anthropic.helpers import SONNET, body, error_of, events, post, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

SCENARIO = """\
settings:
  limits: {rpm: 2, keys: {sk-roomy: {rpm: 100}}}
models:
  anthropic/claude-sonnet-4.5:
    providers:
      - {name: anthropic, fail: {status: 503}}
      - {name: amazon-bedrock, latency_ms: 5}
rules:
  - name: slow
    match: {last_user: slow}
    reply: {content: "one two three", stream: {first_token_ms: 300, chunk_ms: 50}}
  - name: broken-stream
    match: {last_user: broken}
    reply: {content: "one two three four five six", stream: {fault: {after_chunks: 4, kind: error, code: "529", message: "Overloaded"}}}
  - name: cut-stream
    match: {last_user: cut}
    reply: {content: "one two three four five six", stream: {fault: {after_chunks: 3, kind: disconnect}}}
  - name: garbled-stream
    match: {last_user: garbled}
    reply: {content: "one two", stream: {fault: {after_chunks: 2, kind: malformed}}}
  - name: flaky-then-fine
    match: {last_user: flaky}
    replies:
      - {error: {status: 429}}
      - {content: "third time lucky"}
  - name: shared-answer
    match: {last_user: both faces, system: {contains: terse}}
    expect: {metadata: {user_id: alice}}
    reply: {content: "Same answer on every face."}
  - name: anthropic-only
    match: {api: anthropic, last_user: which face}
    reply: {content: "You came through the Anthropic face."}
  - name: chat-only
    match: {api: chat, last_user: which face}
    reply: {content: "You came through chat completions."}
  - name: wants-weather-tool
    match: {last_user: forecast, tools: [get_weather]}
    reply: {content: "forecast"}
"""
ROOMY = {"x-api-key": "sk-roomy"}


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(SCENARIO)


def test_pacing_comes_from_the_rule(server: EmulatorServer, session: str) -> None:
    started = time.perf_counter()
    raw = post(server, body("slow please", stream=True), session, headers=ROOMY)
    elapsed = time.perf_counter() - started
    assert raw.status == 200 and elapsed >= 0.3 + 0.05 * 3
    assert (
        "".join(d["delta"].get("text", "") for n, d in events(raw.text) if n == "content_block_delta")
        == "one two three"
    )


def test_an_in_stream_error_is_an_error_event_with_anthropic_s_object(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("broken", stream=True), session, headers=ROOMY)
    got = events(raw.text)
    assert [n for n, _ in got] == ["message_start", "content_block_start", "ping", "content_block_delta", "error"]
    assert got[-1][1] == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with (
        sdk(server, session, api_key="sk-roomy") as client,
        pytest.raises(anthropic.APIStatusError) as caught,
        client.messages.stream(model=SONNET, max_tokens=64, messages=[{"role": "user", "content": "broken"}]) as s,
    ):
        s.get_final_message()
    assert "Overloaded" in str(caught.value)
    [*_, entry] = server.state.journal.entries(session=session)
    assert entry.fault == "error" and entry.events_sent == 4


def test_a_disconnect_cuts_the_stream_and_the_sdk_sees_it(server: EmulatorServer, session: str) -> None:
    with (
        sdk(server, session, api_key="sk-roomy") as client,
        pytest.raises(Exception) as caught,
        client.messages.stream(model=SONNET, max_tokens=64, messages=[{"role": "user", "content": "cut"}]) as s,
    ):
        s.get_final_message()
    assert "incomplete chunked read" in str(caught.value)  # the SDK passes its HTTP library's error on
    [*_, entry] = server.state.journal.entries(session=session)
    assert entry.fault == "disconnect" and entry.events_sent == 3


def test_a_malformed_event_goes_out_mid_stream(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("garbled", stream=True), session, headers=ROOMY)
    assert '"text": "unterminated\n\nevent: content_block_start' not in raw.text  # the bad event ends the line
    assert raw.text.count("event: content_block_delta") >= 2 and raw.text.endswith(
        'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )


def test_a_scripted_error_in_a_sequence_then_success(server: EmulatorServer, session: str) -> None:
    assert error_of(post(server, body("flaky"), session, headers=ROOMY), 429, "rate_limit") == "Rate limit exceeded"
    with sdk(server, session, api_key="sk-roomy", max_retries=2) as client:
        message = client.messages.create(model=SONNET, max_tokens=64, messages=[{"role": "user", "content": "flaky"}])
    assert message.content[0].text == "third time lucky"  # type: ignore[union-attr]


def test_control_headers_and_chaos(server: EmulatorServer, session: str) -> None:
    faulted = post(server, body("slow"), session, headers={**ROOMY, "X-Emulator-Fault": "error=529"})
    assert faulted.status == 529 and faulted.json()["error"]["code"] == "529"
    struck = post(server, body("slow"), session, headers={**ROOMY, "X-Emulator-Chaos": "1; error=503"})
    assert struck.status == 503
    forced = post(server, body("anything"), session, headers={**ROOMY, "X-Emulator-Rule": "shared-answer"})
    assert forced.json()["content"][0]["text"] == "Same answer on every face."


def test_rate_limits_count_this_face_s_requests(server: EmulatorServer, session: str) -> None:
    key = {"x-api-key": "sk-limited-" + session}
    assert [post(server, body("slow"), session, headers=key).status for _ in range(3)] == [200, 200, 429]
    limited = post(server, body("slow"), session, headers=key)
    assert error_of(limited, 429, "rate_limit") and "retry-after" in limited.headers


def test_routing_falls_back_and_is_reported(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("slow"), session, headers=ROOMY)
    assert raw.headers["x-emulator-routing"] == (
        f"{SONNET}@anthropic=503 internal_server_error; {SONNET}@amazon-bedrock=ok"
    )
    pinned = post(server, body("slow", model=SONNET + ":anthropic"), session, headers=ROOMY)
    assert pinned.status == 503


def test_one_rule_answers_a_chat_and_an_anthropic_client_alike(server: EmulatorServer, session: str) -> None:
    with sdk(server, session, api_key="sk-roomy") as client:
        message = client.messages.create(
            model=SONNET,
            max_tokens=64,
            system="Be terse.",
            metadata={"user_id": "alice"},
            messages=[{"role": "user", "content": "Answer on both faces"}],
        )
    with openai.OpenAI(
        base_url=server.base_url, api_key="sk-roomy", max_retries=0, default_headers={SESSION_HEADER: session}
    ) as chat:
        completion = chat.chat.completions.create(
            model=SONNET,
            metadata={"user_id": "alice"},
            messages=[{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Answer on both faces"}],
        )
    assert message.content[0].text == completion.choices[0].message.content == "Same answer on every face."  # type: ignore[union-attr]
    apis = [(e.api, e.rule, e.unmet_expectations) for e in server.state.journal.entries(session=session)]
    assert apis == [("anthropic", "shared-answer", []), ("chat", "shared-answer", [])]


def test_api_narrows_a_rule_to_one_face(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("which face is this?"), session, headers=ROOMY)
    assert raw.json()["content"][0]["text"] == "You came through the Anthropic face."
    with openai.OpenAI(
        base_url=server.base_url, api_key=API_KEY, max_retries=0, default_headers={SESSION_HEADER: session}
    ) as chat:
        completion = chat.chat.completions.create(model=SONNET, messages=[{"role": "user", "content": "which face?"}])
    assert completion.choices[0].message.content == "You came through chat completions."


def test_unmet_expectations_and_near_misses_cover_this_face(make_server: MakeServer, session: str) -> None:
    server = make_server(SCENARIO, strict=True)
    unmet = post(server, {**body("both faces"), "system": "terse"}, session, headers=ROOMY)
    assert unmet.status == 200 and "metadata" in unmet.headers["x-emulator-expectations"]
    missed = post(server, body("forecast please"), session, headers=ROOMY)
    message = error_of(missed, 404, "emulator_no_match")
    assert "wants-weather-tool" in message
    [*_, entry] = server.state.journal.entries(session=session)
    assert entry.api == "anthropic" and "wants-weather-tool" in [m["rule"] for m in entry.near_misses]


def test_the_control_api_journal_lists_this_face(server: EmulatorServer, session: str) -> None:
    post(server, body("slow"), session, headers=ROOMY)
    url = f"{server.origin}/_emulator/journal?session={session}"
    with urllib.request.urlopen(url, timeout=10) as response:
        import json

        listed = json.loads(response.read())
    entries = listed["entries"] if isinstance(listed, dict) else listed
    assert entries[-1]["api"] == "anthropic" and entries[-1]["path"] == "/api/anthropic/v1/messages"


def test_a_hung_request_can_be_given_up(server: EmulatorServer, session: str) -> None:
    """`X-Emulator-Fault: hang`: the SDK's timeout fires, as against a stuck gateway."""
    with sdk(server, session, api_key="sk-roomy", timeout=0.5) as client, pytest.raises(anthropic.APITimeoutError):
        client.messages.create(
            model=SONNET,
            max_tokens=64,
            messages=[{"role": "user", "content": "slow"}],
            extra_headers={"X-Emulator-Fault": "hang"},
        )
    assert post(server, body("slow"), session, headers=ROOMY).status == 200
