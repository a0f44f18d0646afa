"""Scripted errors through the whole catalogue, non-compliant raw shapes, in-stream and transport faults."""

from __future__ import annotations

import json

import openai
import pytest

from tests.conftest import MakeServer
from tests.failures.helpers import MODEL, chat, finished, wire_post
from tests.support.clients import sdk
from tests.support.shipped import load_paths
from tests.support.sse import parse_sse
from zenmux_emulator.foundation.envelope import CATALOGUE
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SDK_CLASS = {
    400: openai.BadRequestError,
    402: openai.APIStatusError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    413: openai.APIStatusError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
    500: openai.InternalServerError,
    502: openai.InternalServerError,
    520: openai.InternalServerError,
    524: openai.InternalServerError,
}
ENTRIES = sorted(CATALOGUE)


def catalogue_yaml() -> str:
    rules = []
    for i, (status, kind) in enumerate(ENTRIES):
        rules.append(
            f"  - {{name: e{i}, match: {{last_user: {{equals: 'typed {i}'}}}}, "
            f"reply: {{error: {{status: {status}, type: {kind}}}}}}}"
        )
        rules.append(
            f"  - {{name: c{i}, match: {{last_user: {{equals: 'custom {i}'}}}}, "
            f"reply: {{error: {{status: {status}, type: {kind}, message: 'custom {i} text'}}}}}}"
        )
    for status in sorted({s for s, _ in ENTRIES} | {503}):
        rules.append(
            f"  - {{name: s{status}, match: {{last_user: {{equals: 'status {status}'}}}}, "
            f"reply: {{error: {{status: {status}}}}}}}"
        )
    rules.append(
        "  - {name: ms, match: {last_user: {equals: 'ms'}}, "
        "reply: {error: {status: 429, headers: {retry-after-ms: '250'}}}}"
    )
    rules.append(
        "  - {name: hdr, match: {last_user: {equals: 'hdr'}}, "
        "reply: {error: {status: 500, headers: {X-Upstream: 'p1'}}}}"
    )
    return "rules:\n" + "\n".join(rules) + "\n"


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory):
    from tests.conftest import FROZEN
    from zenmux_emulator.settings import Settings

    folder = tmp_path_factory.mktemp("catalogue")
    (folder / "c.yaml").write_text(catalogue_yaml(), encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False)) as server:
        yield server


def test_the_catalogue_is_the_documented_one():
    assert (
        sorted(
            [
                (400, "invalid_params"),
                (402, "insufficient_credit"),
                (402, "reject_no_credit"),
                (402, "quote_exceeded"),
                (403, "access_denied"),
                (403, "safety_check_failed"),
                (404, "model_not_available"),
                (404, "invalid_model"),
                (404, "model_not_supported"),
                (413, "invalid_params"),
                (422, "provider_unprocessable_entity_error"),
                (429, "rate_limit"),
                (500, "internal_server_error"),
                (500, "provider_api_error"),
                (500, "provider_error"),
                (502, "no_provider_available"),
                (520, "provider_internal_server_error"),
                (524, "provider_internal_server_error"),
            ]
        )
        == ENTRIES
    )
    assert CATALOGUE[(403, "access_denied")] == "You have no permission to access this resource"
    assert CATALOGUE[(413, "invalid_params")] == "Prompt is too long"
    assert CATALOGUE[(429, "rate_limit")] == "Rate limit exceeded"


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=[f"{s}-{k}" for s, k in ENTRIES])
def test_typed_error_raw_and_sdk(catalogue: EmulatorServer, session: str, index: int):
    status, kind = ENTRIES[index]
    wire = wire_post(catalogue, chat(f"typed {index}"), session)
    assert wire.status == status
    assert wire.headers["content-type"].split(";")[0] == "application/json"
    assert json.loads(wire.body) == {"error": {"code": str(status), "type": kind, "message": CATALOGUE[(status, kind)]}}
    with sdk(catalogue, session) as client:
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": f"custom {index}"}])
    assert type(caught.value) is SDK_CLASS[status]
    assert caught.value.status_code == status
    assert caught.value.body == {"code": str(status), "type": kind, "message": f"custom {index} text"}


@pytest.mark.parametrize("status", sorted({s for s, _ in ENTRIES}))
def test_status_only_gets_the_first_catalogue_type(catalogue: EmulatorServer, session: str, status: int):
    first = next(kind for s, kind in CATALOGUE if s == status)
    wire = wire_post(catalogue, chat(f"status {status}"), session)
    assert wire.status == status
    assert json.loads(wire.body)["error"] == {"code": str(status), "type": first, "message": CATALOGUE[(status, first)]}
    if status == 402:
        assert first == "insufficient_credit"
    assert ("retry-after" in wire.headers) == (status == 429)


def test_a_status_outside_the_catalogue_gets_a_generic_envelope(catalogue: EmulatorServer, session: str):
    wire = wire_post(catalogue, chat("status 503"), session)
    assert wire.status == 503
    error = json.loads(wire.body)["error"]
    assert error["code"] == "503"
    assert error["type"] == "internal_server_error"
    assert error["message"] == "The request failed with status 503"


def test_a_scripted_429_carries_retry_after_1_by_default(catalogue: EmulatorServer, session: str):
    wire = wire_post(catalogue, chat("status 429"), session)
    assert wire.headers["retry-after"] == "1"
    assert "retry-after-ms" not in wire.headers


def test_a_scripted_retry_after_ms_suppresses_the_default(catalogue: EmulatorServer, session: str):
    wire = wire_post(catalogue, chat("ms"), session)
    assert wire.status == 429
    assert wire.headers["retry-after-ms"] == "250"
    assert "retry-after" not in wire.headers


def test_scripted_error_headers_are_sent(catalogue: EmulatorServer, session: str):
    wire = wire_post(catalogue, chat("hdr"), session)
    assert wire.status == 500
    assert wire.headers["x-upstream"] == "p1"
    assert "retry-after" not in wire.headers


# --- non-compliant shapes ------------------------------------------------------------------------

SHAPES = """\
rules:
  - {name: empty, match: {last_user: {equals: empty}}, reply: {raw: {status: 500, body: ""}}}
  - {name: empty200, match: {last_user: {equals: empty200}}, reply: {raw: {}}}
  - name: plain
    match: {last_user: {equals: plain}}
    reply: {raw: {status: 400, content_type: text/plain, body: '{"error": {"message": "as text"}}', headers: {X-Proxy: edge}}}
"""


def test_raw_empty_body(make_server: MakeServer, session: str):
    server = make_server(SHAPES)
    wire = wire_post(server, chat("empty"), session)
    assert (wire.status, wire.body) == (500, b"")
    assert wire.headers["content-length"] == "0"
    with sdk(server, session) as client:
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "empty"}])
    assert caught.value.status_code == 500


def test_raw_empty_200_defaults(make_server: MakeServer, session: str):
    wire = wire_post(make_server(SHAPES), chat("empty200"), session)
    assert wire.status == 200
    assert wire.body == b""
    assert wire.headers["content-type"].split(";")[0] == "application/json"


def test_raw_wrong_content_type(make_server: MakeServer, session: str):
    server = make_server(SHAPES)
    wire = wire_post(server, chat("plain"), session)
    assert wire.status == 400
    assert wire.headers["content-type"].split(";")[0] == "text/plain"
    assert wire.headers["x-proxy"] == "edge"
    assert wire.body == b'{"error": {"message": "as text"}}'
    with sdk(server, session) as client:
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "plain"}])


# --- stream faults -------------------------------------------------------------------------------

STREAMS = """\
rules:
  - {name: whole, match: {last_user: {equals: whole}}, reply: {content: "a b c d e f g h"}}
  - name: half
    match: {last_user: {equals: half}}
    reply: {content: "a b c d e f g h", stream: {fault: {after_fraction: 0.5, kind: disconnect}}}
  - name: stall
    match: {last_user: {equals: stall}}
    reply: {content: "a b c", stream: {fault: {after_chunks: 2, kind: stall, stall_ms: 400}}}
  - name: default-error
    match: {last_user: {equals: deferr}}
    reply: {content: "a b c", stream: {fault: {after_chunks: 0, kind: error}}}
"""


def test_after_fraction_cuts_at_half_the_events(make_server: MakeServer, session: str):
    server = make_server(STREAMS)
    whole = parse_sse(wire_post(server, chat("whole", stream=True), session + "w").body)
    half = wire_post(server, chat("half", stream=True), session)
    assert half.chunked_complete is False
    assert len(half.data_events) == round(len(whole.data) * 0.5)
    (entry,) = finished(server, session)
    assert (entry.fault, entry.events_sent) == ("disconnect", round(len(whole.data) * 0.5))


def test_stall_sends_keepalives_then_completes(make_server: MakeServer, session: str):
    server = make_server(STREAMS, keepalive_ms=50)
    wire = wire_post(server, chat("stall", stream=True), session)
    body = parse_sse(wire.body)
    assert body.comments and set(body.comments) == {"ZENMUX PROCESSING"}
    assert body.done
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in body.chunks if c["choices"]) == "a b c"
    (entry,) = finished(server, session)
    assert entry.fault == "stall"
    assert entry.events_sent == len(body.data)


def test_default_in_stream_error_before_any_event(make_server: MakeServer, session: str):
    body = parse_sse(wire_post(make_server(STREAMS), chat("deferr", stream=True), session).body)
    assert not body.done
    assert len(body.data) == 1
    assert json.loads(body.data[0])["error"] == {"code": "500", "message": "The provider returned an error mid-stream"}


def test_timing_is_deterministic_across_servers(make_server: MakeServer, session: str):
    text = """\
    rules:
      - name: paced
        reply: {content: "one two three four five", stream: {first_token_ms: 5, tokens_per_second: 200, jitter_ms: 20}}
    """
    bodies = []
    for _ in range(2):
        server = make_server(text, seed=99)
        wire = wire_post(server, chat("x", stream=True), session)
        bodies.append(wire.body)
        (entry,) = finished(server, session)
        assert entry.events_sent == len(parse_sse(wire.body).data)  # every event, [DONE] included
    assert bodies[0] == bodies[1]
    assert parse_sse(bodies[0]).done


# --- transport faults ----------------------------------------------------------------------------

TRANSPORT = """\
rules:
  - {name: reset, match: {last_user: {equals: reset}}, reply: {fault: {kind: reset}}}
  - {name: hang, match: {last_user: {equals: hang}}, reply: {fault: {kind: hang}}}
  - {name: ok, match: {last_user: {equals: ok}}, reply: {content: still here}}
"""


def test_reset_raw_and_sdk(make_server: MakeServer, session: str):
    server = make_server(TRANSPORT)
    with pytest.raises(ConnectionResetError):
        wire_post(server, chat("reset"), session)
    with sdk(server, session) as client:
        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "reset"}])
    entries = finished(server, session, 2)
    assert [(e.fault, e.dropped, e.status) for e in entries] == [("reset", True, None)] * 2


def test_hang_times_out_and_the_server_still_answers(make_server: MakeServer, session: str):
    server = make_server(TRANSPORT)
    client = openai.OpenAI(
        base_url=server.base_url,
        api_key="sk-ai-v1-test-key",
        max_retries=0,
        timeout=0.5,
        default_headers={"X-Emulator-Session": session},
    )
    with client:
        with pytest.raises(openai.APITimeoutError):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hang"}])
        assert (
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "ok"}])
            .choices[0]
            .message.content
            == "still here"
        )
    hung = finished(server, session, 2)
    assert [e.rule for e in hung] == ["hang", "ok"]
    assert hung[0].dropped is True and hung[0].fault == "hang"


# --- load errors ---------------------------------------------------------------------------------


def _problems(tmp_path, text: str):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_paths([path])
    return caught.value.problems


def test_stream_fault_with_both_positions_is_a_load_error(tmp_path):
    problems = _problems(
        tmp_path,
        "rules:\n  - name: a\n    reply:\n      content: x\n      stream:\n"
        "        fault: {kind: error, after_chunks: 1, after_fraction: 0.5}\n",
    )
    assert len(problems) == 1
    assert problems[0].line == 6
    assert "exactly one of after_chunks or after_fraction" in problems[0].reason


def test_reply_with_error_and_raw_is_a_load_error(tmp_path):
    problems = _problems(
        tmp_path, "rules:\n  - name: a\n    reply:\n      error: {status: 500}\n      raw: {body: x}\n"
    )
    assert len(problems) == 1
    assert problems[0].line is not None
    assert "not both" in problems[0].reason


def test_error_header_with_a_newline_is_a_load_error(tmp_path):
    problems = _problems(
        tmp_path, 'rules:\n  - name: a\n    reply:\n      error: {status: 429, headers: {Retry-After: "1\\nX: y"}}\n'
    )
    assert len(problems) == 1
    assert problems[0].line == 4
    assert "printable ASCII without line breaks" in problems[0].reason
