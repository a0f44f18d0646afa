"""Every rule of the shipped scenarios/failures.yaml, through the official SDK and raw HTTP."""

from __future__ import annotations

import http.client
import itertools
import json
from pathlib import Path

import httpx2
import openai
import pytest
import yaml

from tests.failures.conftest import FAILURES_YAML
from tests.failures.helpers import MODEL, chat, finished, wire_post
from tests.support.clients import sdk
from tests.support.sse import parse_sse
from zenmux_emulator.pytest_plugin.server import EmulatorServer

HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_every_rule_of_failures_yaml_is_covered_here():
    """A new rule in failures.yaml must get a test in this file (named after the rule)."""
    names = {rule["name"] for rule in yaml.safe_load(FAILURES_YAML.read_text(encoding="utf-8"))["rules"]}
    source = Path(__file__).read_text(encoding="utf-8")
    assert names == {
        "rate-limited-then-ok",
        "cut-stream",
        "stream-error",
        "malformed-chunk",
        "too-slow",
        "no-credit",
        "proxy-html",
        "error-inside-200",
        "dropped-connection",
        "slow-pacing",
    }
    for name in names:
        assert f"test_{name.replace('-', '_')}" in source, name


# --- rate-limited-then-ok ------------------------------------------------------------------------


def test_rate_limited_then_ok_sdk_retries_honour_retry_after(failures: EmulatorServer, session: str):
    with sdk(failures, session, max_retries=2) as client:
        completion = client.chat.completions.create(model=MODEL, messages=user("please retry me"))
    assert completion.choices[0].message.content == "third time lucky"
    entries = finished(failures, session, 3)
    assert [e.status for e in entries] == [429, 429, 200]
    assert [e.rule for e in entries] == ["rate-limited-then-ok"] * 3
    assert [e.reply_index for e in entries] == [0, 1, 2]
    for entry in entries[:2]:
        headers = {k.lower(): v for k, v in entry.response_headers.items()}
        assert headers["retry-after"] == "1"
        assert entry.error_type == "rate_limit"
    gaps = [later.arrived - earlier.arrived for earlier, later in itertools.pairwise(entries)]
    assert all(gap >= 1.0 for gap in gaps), gaps


def test_rate_limited_then_ok_without_retries_raises_rate_limit_error(failures: EmulatorServer, session: str):
    with sdk(failures, session, max_retries=0) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model=MODEL, messages=user("retry me"))
    assert caught.value.status_code == 429
    assert caught.value.body == {"code": "429", "type": "rate_limit", "message": "Rate limit exceeded"}
    assert caught.value.response.headers["retry-after"] == "1"
    assert caught.value.response.json() == {"error": caught.value.body}


def test_rate_limited_then_ok_sequence_is_per_session(failures: EmulatorServer, session: str):
    first = [wire_post(failures, chat("retry me"), session + "-a").status for _ in range(2)]
    second = [wire_post(failures, chat("retry me"), session + "-b").status for _ in range(3)]
    third = wire_post(failures, chat("retry me"), session + "-a")
    assert first == [429, 429]
    assert second == [429, 429, 200]
    assert third.status == 200
    assert json.loads(third.body)["choices"][0]["message"]["content"] == "third time lucky"
    # after the last reply the sequence repeats it
    assert wire_post(failures, chat("retry me"), session + "-b").status == 200


# --- cut-stream ----------------------------------------------------------------------------------


def test_cut_stream_raw_sees_three_events_and_no_end(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("cut me off", stream=True), session)
    assert wire.status == 200
    assert wire.headers["content-type"].startswith("text/event-stream")
    assert wire.chunked_complete is False, "a cut stream must not end its chunked body"
    events = wire.data_events
    assert len(events) == 3
    assert "[DONE]" not in events
    assert all(json.loads(e)["object"] == "chat.completion.chunk" for e in events)
    (entry,) = finished(failures, session)
    assert entry.fault == "disconnect"
    assert entry.events_sent == 3
    assert entry.rule == "cut-stream"


def test_cut_stream_http_client_gets_incomplete_read(failures: EmulatorServer, session: str):
    connection = http.client.HTTPConnection("127.0.0.1", failures.port, timeout=10)
    try:
        connection.request(
            "POST",
            "/api/v1/chat/completions",
            body=json.dumps(chat("cut me off", stream=True)),
            headers={
                "Authorization": "Bearer sk-ai-v1-test-key",
                "Content-Type": "application/json",
                "X-Emulator-Session": session,
            },
        )
        response = connection.getresponse()
        assert response.status == 200
        with pytest.raises(http.client.IncompleteRead) as caught:
            response.read()
        assert caught.value.partial.count(b"data: ") == 3
        assert b"[DONE]" not in caught.value.partial
    finally:
        connection.close()


def test_cut_stream_sdk_raises_a_transport_error(failures: EmulatorServer, session: str):
    contents: list[str] = []
    with sdk(failures, session) as client:
        with pytest.raises(Exception) as caught:
            for chunk in client.chat.completions.create(model=MODEL, messages=user("cut me off"), stream=True):
                contents.extend(c.delta.content or "" for c in chunk.choices)
    assert isinstance(caught.value, (openai.APIError, httpx2.HTTPError)), type(caught.value)
    assert "".join(contents) == "one two"  # role chunk, "one", " two": then the cut


# --- stream-error --------------------------------------------------------------------------------


def test_stream_error_raw_ends_with_error_event_and_no_done(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("fail mid-stream", stream=True), session)
    assert wire.status == 200
    assert wire.chunked_complete is True
    body = parse_sse(wire.body)
    assert not body.done
    assert len(body.data) == 4
    last = json.loads(body.data[-1])
    assert last["error"] == {"code": "502", "message": "Upstream provider failed"}
    assert last["choices"] == [{"index": 0, "delta": {}, "finish_reason": "error"}]
    assert last["object"] == "chat.completion.chunk"
    assert last["id"] == json.loads(body.data[0])["id"]
    (entry,) = finished(failures, session)
    assert entry.fault == "error"
    assert entry.events_sent == 3


def test_stream_error_sdk_raises_api_error_with_the_message(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        with pytest.raises(openai.APIError) as caught:
            for _ in client.chat.completions.create(model=MODEL, messages=user("fail mid-stream"), stream=True):
                pass
    assert caught.value.message == "Upstream provider failed"
    assert caught.value.body == {"code": "502", "message": "Upstream provider failed"}


# --- malformed-chunk -----------------------------------------------------------------------------


def test_malformed_chunk_raw_third_event_is_not_json_then_done(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("garbled", stream=True), session)
    body = parse_sse(wire.body)
    assert body.done
    json.loads(body.data[0]), json.loads(body.data[1])
    with pytest.raises(json.JSONDecodeError):
        json.loads(body.data[2])
    rest = [json.loads(d) for d in body.data[3:-1]]
    content = "".join(
        c["choices"][0]["delta"].get("content") or ""
        for c in [json.loads(body.data[0]), json.loads(body.data[1]), *rest]
        if c["choices"]
    )
    assert content == "one two three", "the malformed event is extra: no real event is lost"
    (entry,) = finished(failures, session)
    assert entry.fault == "malformed"


def test_malformed_chunk_sdk_raises_json_decode_error(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        with pytest.raises(json.JSONDecodeError):
            for _ in client.chat.completions.create(model=MODEL, messages=user("garbled"), stream=True):
                pass


# --- too-slow ------------------------------------------------------------------------------------


def test_too_slow_times_out_an_impatient_client(failures: EmulatorServer, session: str):
    client = openai.OpenAI(
        base_url=failures.base_url,
        api_key="sk-ai-v1-test-key",
        max_retries=0,
        timeout=0.5,
        default_headers={"X-Emulator-Session": session},
    )
    with client, pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model=MODEL, messages=user("take your time"))
    (entry,) = finished(failures, session)
    assert entry.fault == "delay"


def test_too_slow_a_patient_client_gets_finally(failures: EmulatorServer, session: str):
    client = openai.OpenAI(
        base_url=failures.base_url,
        api_key="sk-ai-v1-test-key",
        max_retries=0,
        timeout=10,
        default_headers={"X-Emulator-Session": session},
    )
    with client:
        completion = client.chat.completions.create(model=MODEL, messages=user("take your time"))
    assert completion.choices[0].message.content == "finally"
    (entry,) = finished(failures, session)
    assert (entry.fault, entry.status, entry.dropped) == ("delay", 200, False)


# --- no-credit -----------------------------------------------------------------------------------


def test_no_credit_is_a_402_reject_no_credit(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model=MODEL, messages=user("I am out of credit"))
    assert type(caught.value) is openai.APIStatusError
    assert caught.value.status_code == 402
    assert caught.value.body == {
        "code": "402",
        "type": "reject_no_credit",
        "message": "Credit required. This model requires a positive balance.",
    }


# --- proxy-html ----------------------------------------------------------------------------------


def test_proxy_html_raw_bytes(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("behind a proxy"), session)
    assert wire.status == 502
    assert wire.headers["content-type"].split(";")[0] == "text/html"
    assert wire.body == HTML.encode()


def test_proxy_html_sdk_raises_internal_server_error(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(model=MODEL, messages=user("behind a proxy"))
    assert caught.value.status_code == 502
    assert caught.value.response.text == HTML


# --- error-inside-200 ----------------------------------------------------------------------------


def test_error_inside_200_raw_body_is_exact(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("a sneaky error"), session)
    assert wire.status == 200
    assert wire.headers["content-type"].split(";")[0] == "application/json"
    assert wire.body == b'{"error": {"code": "500", "type": "provider_error", "message": "upstream failed"}}'


def test_error_inside_200_sdk_parses_without_raising(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=user("a sneaky error"))
        completion = raw.parse()
    assert raw.status_code == 200
    assert json.loads(raw.text)["error"]["message"] == "upstream failed"
    assert completion.choices is None or completion.choices == []  # nothing usable inside


# --- dropped-connection --------------------------------------------------------------------------


def test_dropped_connection_raw_sees_no_response(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("hang up"), session)
    assert wire.raw == b""
    (entry,) = finished(failures, session)
    assert entry.dropped is True
    assert entry.status is None
    assert entry.fault == "close"
    assert entry.rule == "dropped-connection"


def test_dropped_connection_sdk_raises_connection_error(failures: EmulatorServer, session: str):
    with sdk(failures, session) as client:
        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(model=MODEL, messages=user("hang up"))


# --- slow-pacing ---------------------------------------------------------------------------------


def test_slow_pacing_streams_every_event(failures: EmulatorServer, session: str):
    wire = wire_post(failures, chat("jittery", stream=True), session)
    body = parse_sse(wire.body)
    assert body.done
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in body.chunks if c["choices"])
    assert content == "a b c d e"
    (entry,) = finished(failures, session)
    assert entry.rule == "slow-pacing"
    assert entry.events_sent == len(body.data)
    assert entry.fault is None


def test_slow_pacing_is_byte_identical_across_runs(session: str):
    bodies = []
    for _ in range(2):
        from tests.conftest import FROZEN
        from zenmux_emulator.settings import Settings

        with EmulatorServer(
            Settings(port=0, scenarios=[str(FAILURES_YAML)], clock=FROZEN, watch=False, seed=7)
        ) as server:
            bodies.append(wire_post(server, chat("jittery", stream=True), session).body)
    assert bodies[0] == bodies[1]
    assert parse_sse(bodies[0]).done
