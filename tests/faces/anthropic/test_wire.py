"""The face on the wire, byte by byte: the message body, the named SSE events in Anthropic's
order, stop reasons and usage mapped from the draft, headers and ZenMux's error envelope."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import SONNET, body, error_of, events, post
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import DEFAULT_SEED

SCENARIO = """\
rules:
  - name: plain
    match: {last_user: {contains: plain}}
    reply: {content: "Hello there", usage: {cached_tokens: 4}, service_tier: priority}
  - name: everything
    match: {last_user: {contains: everything}}
    reply:
      reasoning: "Think first"
      content: "Calling now"
      tool_calls:
        - {name: lookup, arguments: {q: "zenmux emulator"}}
      stream: {chunk_tokens: 100, argument_chars: 10}
  - name: stops
    match: {last_user: {contains: stops}}
    reply: {content: "one two END three four"}
  - name: refuses
    match: {last_user: {contains: refuse}}
    reply: {refusal: "I can't help with that."}
"""
LOOKUP = {"name": "lookup", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
CAPTURES = Path(__file__).parent / "captures"  # where they come from: captures/README.md


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(SCENARIO)


def test_the_message_body_in_anthropic_s_shape(server: EmulatorServer, session: str) -> None:
    raw = post(server, body("plain please"), session)
    assert raw.status == 200 and raw.headers["content-type"].startswith("application/json")
    message = raw.json()
    assert list(message) == ["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"]
    assert message["id"].startswith("msg_01") and len(message["id"]) == len("msg_01") + 22
    assert (message["type"], message["role"], message["model"]) == ("message", "assistant", SONNET)
    assert message["content"] == [{"type": "text", "text": "Hello there"}]
    assert (message["stop_reason"], message["stop_sequence"]) == ("end_turn", None)
    usage = message["usage"]
    assert list(usage) == [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
        "service_tier",
    ]
    assert usage["cache_read_input_tokens"] == 4 and usage["cache_creation_input_tokens"] == 0
    assert usage["output_tokens"] == 2 and usage["service_tier"] == "priority"
    assert raw.headers["x-emulator-rule"] == "plain"


def test_the_event_stream_byte_by_byte(server: EmulatorServer, session: str) -> None:
    ask = body(
        "everything", stream=True, tools=[LOOKUP], max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 1024}
    )
    raw = post(server, ask, session)
    assert raw.status == 200 and raw.headers["content-type"] == "text/event-stream; charset=utf-8"
    got = events(raw.text)
    names = [name for name, _ in got]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = got[0][1]["message"]
    message_id, usage = start["id"], start["usage"]
    signature = Signer.from_settings(DEFAULT_SEED, None).sign("anthropic", 0, "Think first")
    use_id = got[9][1]["content_block"]["id"]
    assert use_id.startswith("toolu_")
    input_tokens = usage["input_tokens"]
    output_tokens = got[14][1]["usage"]["output_tokens"]
    values = {
        "message_id": message_id,
        "model": SONNET,
        "input_tokens": str(input_tokens),
        "output_tokens": str(output_tokens),
        "signature": signature,
        "use_id": use_id,
    }

    def line(name: str, data: str) -> str:
        for key, value in values.items():
            data = data.replace("{" + key + "}", value)
        return f"event: {name}\ndata: {data}\n\n"

    expected = "".join(
        [
            line(
                "message_start",
                '{"type":"message_start","message":{"id":"{message_id}","type":"message","role":"assistant",'
                '"model":"{model}","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":{input_tokens},'
                '"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}',
            ),
            line(
                "content_block_start",
                '{"type":"content_block_start","index":0,"content_block":{"type":"thinking",'
                '"thinking":"","signature":""}}',
            ),
            line("ping", '{"type":"ping"}'),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Think first"}}',
            ),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"{signature}"}}',
            ),
            line("content_block_stop", '{"type":"content_block_stop","index":0}'),
            line(
                "content_block_start",
                '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
            ),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Calling now"}}',
            ),
            line("content_block_stop", '{"type":"content_block_stop","index":1}'),
            line(
                "content_block_start",
                '{"type":"content_block_start","index":2,"content_block":{"type":"tool_use",'
                '"id":"{use_id}","name":"lookup","input":{}}}',
            ),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta",'
                '"partial_json":"{\\"q\\":\\"zenm"}}',
            ),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta",'
                '"partial_json":"ux emulato"}}',
            ),
            line(
                "content_block_delta",
                '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"r\\"}"}}',
            ),
            line("content_block_stop", '{"type":"content_block_stop","index":2}'),
            line(
                "message_delta",
                '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},'
                '"usage":{"input_tokens":{input_tokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,'
                '"output_tokens":{output_tokens}}}',
            ),
            line("message_stop", '{"type":"message_stop"}'),
        ]
    )
    assert raw.text == expected
    plain = post(server, {**ask, "stream": False}, session).json()
    assert plain["id"].startswith("msg_01") and plain["id"] != message_id  # a new generation
    assert plain["usage"]["output_tokens"] == output_tokens
    assert plain["content"][0] == {"type": "thinking", "thinking": "Think first", "signature": signature}


def test_a_text_only_stream_has_the_documented_order(server: EmulatorServer, session: str) -> None:
    got = events(post(server, body("plain", stream=True), session).text)
    assert [n for n, _ in got] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert "".join(d["delta"]["text"] for n, d in got if n == "content_block_delta") == "Hello there"


@pytest.mark.parametrize(
    ("ask", "reason", "sequence", "text"),
    [
        (body("stops", stop_sequences=["END", "four"]), "stop_sequence", "END", "one two "),
        (body("stops", max_tokens=2), "max_tokens", None, "one two"),
        (body("stops"), "end_turn", None, "one two END three four"),
    ],
)
def test_stop_reasons(
    server: EmulatorServer, session: str, ask: dict[str, Any], reason: str, sequence: str | None, text: str
) -> None:
    message = post(server, ask, session).json()
    assert (message["stop_reason"], message["stop_sequence"]) == (reason, sequence)
    assert message["content"] == [{"type": "text", "text": text}]
    streamed = events(post(server, {**ask, "stream": True}, session).text)
    delta = next(d for n, d in streamed if n == "message_delta")["delta"]
    assert delta == {"stop_reason": reason, "stop_sequence": sequence}


def test_a_refusal_is_stop_reason_refusal(server: EmulatorServer, session: str) -> None:
    message = post(server, body("please refuse"), session).json()
    assert message["stop_reason"] == "refusal"
    assert message["content"] == [{"type": "text", "text": "I can't help with that."}]


def test_beta_query_and_header_list(server: EmulatorServer, session: str) -> None:
    betas = "claude-code-20250219, interleaved-thinking-2025-05-14,made-up-2030-01-01,code-execution-2025-08-25"
    raw = post(
        server, body("plain", surprise=1), session, path="/v1/messages?beta=true", headers={"anthropic-beta": betas}
    )
    assert raw.status == 200
    warnings = raw.headers["x-emulator-warnings"]
    assert "anthropic-beta made-up-2030-01-01: unknown beta; ignored" in warnings
    assert "anthropic-beta code-execution-2025-08-25: not supported by ZenMux; ignored" in warnings
    assert "surprise: not a Messages API field the emulator knows; ignored" in warnings
    assert "claude-code" not in warnings and "interleaved" not in warnings
    [entry] = [e for e in server.state.journal.entries() if e.session == session]
    assert entry.api == "anthropic" and entry.path == "/api/anthropic/v1/messages"
    assert {k.lower(): v for k, v in entry.headers.items()}["anthropic-beta"] == betas


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"anthropic-version": ""}, "anthropic-version: header is required"),
        ({"anthropic-version": "banana"}, "anthropic-version: 'banana' is not a supported version; use 2023-06-01"),
    ],
)
def test_anthropic_version_is_required_and_well_formed(
    server: EmulatorServer, session: str, headers: dict[str, str], message: str
) -> None:
    assert error_of(post(server, body("plain"), session, headers=headers), 400) == message


def test_a_missing_or_refused_key_is_403_access_denied(make_server: MakeServer, session: str) -> None:
    server = make_server(SCENARIO, api_keys=["sk-only-this"])
    for raw in (
        post(server, body("plain"), session, auth=False),
        post(server, body("plain"), session),
        post(server, body("plain"), session, path="/v1/messages/count_tokens", auth=False),
    ):
        assert error_of(raw, 403, "access_denied") == "You have no permission to access this resource"
    ok = post(server, body("plain"), session, auth=False, headers={"Authorization": "Bearer sk-only-this"})
    assert ok.status == 200


def test_models_need_no_key_and_have_zenmux_s_shape(server: EmulatorServer) -> None:
    from tests.support.clients import http

    listing = http(server.anthropic_url + "/v1/models").json()
    assert set(listing) == {"data", "has_more", "first_id", "last_id"}
    assert listing["has_more"] is True and len(listing["data"]) == 20  # Anthropic's default page of ZenMux's 112
    assert listing["first_id"] == listing["data"][0]["id"] and listing["last_id"] == listing["data"][-1]["id"]
    model = next(m for m in http(server.anthropic_url + "/v1/models?limit=1000").json()["data"] if m["id"] == SONNET)
    assert model["type"] == "model" and model["display_name"] == "Anthropic: Claude Sonnet 4.5"
    assert model["created_at"] == "2025-09-29" and model["context_length"] == 1_000_000  # the snapshot's facts
    one = http(server.anthropic_url + "/v1/models/" + SONNET)
    assert one.json() == model
    assert error_of(http(server.anthropic_url + "/v1/models/acme/none"), 404, "invalid_model")
    after = http(server.anthropic_url + f"/v1/models?limit=1&after_id={listing['data'][0]['id']}").json()
    assert [m["id"] for m in after["data"]] == [listing["data"][1]["id"]] and after["has_more"] is True


def replay(server: EmulatorServer, session: str, capture: str, model: str = SONNET) -> Any:
    recorded = json.loads(gzip.decompress((CAPTURES / capture).read_bytes()))
    sent = {**recorded["body"], "model": model}
    assert len(json.dumps(sent)) > 75_000
    return post(
        server,
        sent,
        session,
        path="/v1/messages?beta=true",
        headers={"anthropic-beta": recorded["headers"]["anthropic-beta"], "anthropic-version": "2023-06-01"},
    )


@pytest.mark.parametrize("capture", ["01_turn1_bash_sonnet45.json.gz", "03_turn1_bash_default_opus.json.gz"])
def test_claude_code_s_captured_bodies_are_accepted(server: EmulatorServer, session: str, capture: str) -> None:
    """Real Claude Code 2.1.197 requests (76-128 KB, a `role: system` message, adaptive thinking,
    output_config, context_management, cache_control everywhere), with a catalogue model name."""
    raw = replay(server, session, capture)
    assert raw.status == 200, raw.text
    assert "x-emulator-warnings" not in raw.headers
    names = [n for n, _ in events(raw.text)]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]


@pytest.mark.parametrize(
    "capture", ["02_turn2_tool_result_sonnet45.json.gz", "04_turn2_tool_result_default_opus.json.gz"]
)
def test_a_captured_second_turn_without_thinking_is_refused_for_claude(
    server: EmulatorServer, session: str, capture: str
) -> None:
    """The capture's stub answered turn 1 without thinking; with thinking on, Anthropic (and so
    ZenMux) refuse a tool turn whose assistant message does not start with a thinking block. An
    OpenAI model behind the same face does not need one."""
    message = error_of(replay(server, session, capture), 400)
    assert (
        message.startswith("messages.")
        and "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in message
    )
    assert replay(server, session, capture, model="openai/gpt-5").status == 200
