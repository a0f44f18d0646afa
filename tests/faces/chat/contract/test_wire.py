"""Byte-level checks with a raw HTTP client: content types, SSE framing, chunk invariants,
usage chunks, stream/JSON agreement, keep-alive comments and response headers."""

from __future__ import annotations

import json
import re
import socket
import warnings
from typing import Any

import openai
import pytest

from tests.conftest import API_KEY, SHIPPED
from tests.faces.chat.contract.helpers import (
    HEX32,
    RawResponse,
    chat,
    content_of,
    finish_reasons,
    post,
    refusal_of,
)
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from tests.support.polling import wait_for
from tests.support.sse import SSEBody
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

# Requests answered by different shipped rules (and the default reply), as (id, body).
REQUESTS = [
    ("greeting", chat("hello wire")),
    ("slow-stream", chat("say it slowly please")),
    ("refusal", chat("tell me the password")),
    ("metadata", chat("an invoice", metadata={"suite": "billing"})),
    ("tiny-model", chat("hi", model="acme/tiny-test")),
    ("default", chat("a question no rule knows")),
]
REQUEST_IDS = [name for name, _ in REQUESTS]
REQUEST_BODIES = [body for _, body in REQUESTS]


def streamed(server: EmulatorServer, body: dict[str, Any], session: str, **fields: Any) -> tuple[RawResponse, SSEBody]:
    """POST the body with `stream: true` (plus `fields`) and parse the stream strictly."""
    response = post(server, {**body, "stream": True, **fields}, session=session)
    assert response.status == 200, response.body
    events = response.sse()
    for chunk in events.chunks:
        assert_chat_chunk(chunk)
    return response, events


def completed(server: EmulatorServer, body: dict[str, Any], session: str) -> dict[str, Any]:
    """POST the body without streaming; the schema-checked JSON."""
    response = post(server, body, session=session)
    assert response.status == 200, response.body
    completion = response.json()
    assert_chat_completion(completion)
    return completion


def test_starting_a_server_raises_no_warning() -> None:
    """pyproject.toml makes warnings errors, so a server that warns on start cannot be used in tests."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with EmulatorServer(Settings(port=0, scenarios=[str(SHIPPED)], watch=False)) as server:
            assert server.port > 0


# --- content types ----------------------------------------------------------------------------


def test_json_reply_has_json_content_type(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("hello json"), session=session)
    assert response.status == 200
    assert response.content_type.split(";")[0].strip() == "application/json"
    assert_chat_completion(response.json())


def test_stream_has_event_stream_content_type_and_no_cache(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("hello sse", stream=True), session=session)
    assert response.status == 200
    assert response.content_type.split(";")[0].strip() == "text/event-stream"
    assert response.headers.get("Cache-Control") == "no-cache"


def test_stream_false_gives_json(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("hello explicit false", stream=False), session=session)
    assert response.content_type.startswith("application/json")
    assert response.json()["object"] == "chat.completion"


def test_json_body_has_the_documented_usage_and_message_shape(shipped: EmulatorServer, session: str) -> None:
    completion = completed(shipped, chat("hello shape"), session)
    usage = completion["usage"]
    assert set(usage["completion_tokens_details"]) >= {
        "accepted_prediction_tokens",
        "audio_tokens",
        "reasoning_tokens",
        "rejected_prediction_tokens",
    }
    assert set(usage["prompt_tokens_details"]) >= {"audio_tokens", "cached_tokens"}
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    message = completion["choices"][0]["message"]
    assert message["role"] == "assistant" and message["refusal"] is None and message["annotations"] == []
    assert "cost" not in usage  # ZenMux returns no synchronous cost (contract §8)


# --- stream invariants ------------------------------------------------------------------------


@pytest.mark.parametrize("body", REQUEST_BODIES, ids=REQUEST_IDS)
def test_stream_framing_and_chunk_invariants(shipped: EmulatorServer, session: str, body: dict[str, Any]) -> None:
    _, events = streamed(shipped, body, session)
    chunks = events.chunks
    assert events.done and events.data[-1] == "[DONE]"
    assert events.comments == []
    assert len(chunks) >= 3  # role, at least one piece, finish
    assert chunks[0]["choices"][0]["delta"].get("role") == "assistant"
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({(c["id"], c["created"], c["model"]) for c in chunks}) == 1
    assert len(finish_reasons(chunks)) == 1
    assert chunks[-1]["choices"][0]["finish_reason"] is not None  # the finish chunk is the last
    assert all(len(c["choices"]) == 1 and c["choices"][0]["index"] == 0 for c in chunks)


@pytest.mark.parametrize("body", REQUEST_BODIES, ids=REQUEST_IDS)
def test_without_usage_request_no_chunk_has_usage(shipped: EmulatorServer, session: str, body: dict[str, Any]) -> None:
    _, events = streamed(shipped, body, session)
    assert all(c.get("usage") is None for c in events.chunks)
    assert all(c["choices"] for c in events.chunks)


@pytest.mark.parametrize(
    "usage_fields",
    [
        {"stream_options": {"include_usage": True}},
        {"usage": {"include": True}},
        {"stream_options": {"include_usage": True}, "usage": {"include": True}},
    ],
    ids=["stream_options", "zenmux-usage", "both"],
)
@pytest.mark.parametrize("body", REQUEST_BODIES, ids=REQUEST_IDS)
def test_usage_request_adds_a_final_usage_chunk_equal_to_the_json_usage(
    shipped: EmulatorServer, session: str, body: dict[str, Any], usage_fields: dict[str, Any]
) -> None:
    _, events = streamed(shipped, body, session + "-stream", **usage_fields)
    *rest, last = events.chunks
    assert last["choices"] == []
    assert last["usage"] is not None
    assert all(c.get("usage") is None for c in rest)
    assert len({(c["id"], c["created"], c["model"]) for c in events.chunks}) == 1
    assert events.data[-1] == "[DONE]"
    assert last["usage"] == completed(shipped, body, session + "-json")["usage"]


@pytest.mark.parametrize("body", REQUEST_BODIES, ids=REQUEST_IDS)
def test_stream_reassembles_to_the_json_reply(shipped: EmulatorServer, session: str, body: dict[str, Any]) -> None:
    _, events = streamed(shipped, body, session + "-stream")
    completion = completed(shipped, body, session + "-json")
    choice = completion["choices"][0]
    assert content_of(events.chunks) == (choice["message"]["content"] or "")
    assert refusal_of(events.chunks) == (choice["message"]["refusal"] or "")
    assert finish_reasons(events.chunks) == [choice["finish_reason"]]
    assert {c["model"] for c in events.chunks} == {completion["model"]}


def test_stream_of_a_sequence_agrees_with_json_position_by_position(shipped: EmulatorServer, session: str) -> None:
    body = chat("retry me")
    stream_side = [streamed(shipped, body, session + "-stream")[1].chunks for _ in range(3)]
    json_side = [completed(shipped, body, session + "-json")["choices"][0] for _ in range(3)]
    assert [content_of(c) for c in stream_side] == [c["message"]["content"] for c in json_side]
    assert [finish_reasons(c) for c in stream_side] == [[c["finish_reason"]] for c in json_side]


# --- headers ----------------------------------------------------------------------------------


def test_stream_headers_identify_request_generation_and_rule(shipped: EmulatorServer, session: str) -> None:
    response, events = streamed(shipped, chat("hello stream headers"), session)
    assert re.fullmatch(HEX32, response.headers["X-ZenMux-RequestId"])
    assert response.headers["x-generation-id"] == events.chunks[0]["id"]
    assert response.headers["X-Emulator-Rule"] == "greeting"


def test_json_headers_identify_request_generation_and_rule(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("tell me slowly"), session=session)
    assert re.fullmatch(HEX32, response.headers["X-ZenMux-RequestId"])
    assert response.headers["x-generation-id"] == response.json()["id"]
    assert response.headers["X-Emulator-Rule"] == "slow-stream"


def test_default_reply_has_no_rule_header(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("nothing scripted here"), session=session)
    assert response.status == 200
    assert "X-Emulator-Rule" not in response.headers


def test_request_ids_differ_between_requests(shipped: EmulatorServer, session: str) -> None:
    ids = {post(shipped, chat("hello"), session=session).headers["X-ZenMux-RequestId"] for _ in range(3)}
    assert len(ids) == 3


# --- keep-alive -------------------------------------------------------------------------------

SLOW_FIRST_TOKEN = """
rules:
  - name: slow-start
    match: {}
    reply:
      content: "late but here"
      stream: {first_token_ms: 250}
"""


def test_keepalive_comments_precede_a_slow_first_chunk(make_server) -> None:
    server = make_server(SLOW_FIRST_TOKEN, keepalive_ms=100)
    response = post(server, chat("anything", stream=True))
    events = response.sse()
    text = response.body.decode()
    assert ": ZENMUX PROCESSING\n\n" in text
    assert text.index(": ZENMUX PROCESSING") < text.index("data: ")
    assert events.comments and set(events.comments) == {"ZENMUX PROCESSING"}
    assert content_of(events.chunks) == "late but here"
    assert events.done


def test_keepalive_interval_defaults_to_ten_seconds() -> None:
    assert Settings.model_fields["keepalive_ms"].default == 10_000


def test_keepalive_comments_are_ignored_by_the_sdk(make_server) -> None:
    server = make_server(SLOW_FIRST_TOKEN, keepalive_ms=100)
    with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        with client.chat.completions.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "x"}], stream=True
        ) as stream:
            chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "late but here"
    assert [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason] == ["stop"]


def test_no_keepalive_when_the_stream_is_not_delayed(make_server) -> None:
    server = make_server(SLOW_FIRST_TOKEN.replace("first_token_ms: 250", "first_token_ms: 0"), keepalive_ms=100)
    events = post(server, chat("anything", stream=True)).sse()
    assert events.comments == []
    assert content_of(events.chunks) == "late but here"


PACED_GAPS = """
rules:
  - name: long-gaps
    match: {}
    reply:
      content: "a b c"
      stream: {chunk_ms: 250}
"""


def test_keepalive_comments_fill_long_gaps_between_chunks(make_server) -> None:
    server = make_server(PACED_GAPS, keepalive_ms=100)
    response = post(server, chat("anything", stream=True))
    events = response.sse()
    kinds = ["comment" if block.startswith(":") else "data" for block in response.body.decode().split("\n\n")[:-1]]
    first_data = kinds.index("data")
    assert "comment" in kinds[first_data:], kinds  # comments during the gaps, not only before the first chunk
    assert content_of(events.chunks) == "a b c"
    assert events.done


# --- content that must not break the framing --------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "hello\nsecond line\n\nthird",
        "hello café 👋 日本語",
        "hello data: [DONE]\n\ndata: {}",
        "hello \r\n carriage",
        "hello \u2028 line separator \u0085 next line",
    ],
    ids=["newlines", "unicode", "fake-events", "crlf", "unicode-line-breaks"],
)
def test_any_content_stays_one_line_per_event(shipped: EmulatorServer, session: str, text: str) -> None:
    _, events = streamed(shipped, chat(text), session)
    assert content_of(events.chunks) == f"Hi {text}! How can I help?"
    assert events.data[-1] == "[DONE]"
    json_side = completed(shipped, chat(text), session + "-json")
    assert json_side["choices"][0]["message"]["content"] == f"Hi {text}! How can I help?"


def test_sdk_reads_awkward_content_intact(shipped: EmulatorServer, session: str) -> None:
    text = "hello\n\ndata: [DONE]\r\n\u2028👋"
    with openai.OpenAI(
        base_url=shipped.base_url, api_key=API_KEY, max_retries=0, default_headers={"X-Emulator-Session": session}
    ) as client:
        with client.chat.completions.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": text}], stream=True
        ) as stream:
            chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == f"Hi {text}! How can I help?"


def test_user_text_is_not_evaluated_as_a_template(shipped: EmulatorServer, session: str) -> None:
    text = "hello {{ 7 * 7 }} {% if true %}yes{% endif %}"
    completion = completed(shipped, chat(text), session)
    assert completion["choices"][0]["message"]["content"] == f"Hi {text}! How can I help?"


# --- a client that leaves mid-stream ----------------------------------------------------------


def test_client_leaving_mid_stream_is_recorded_and_the_server_keeps_serving(make_server) -> None:
    server = make_server(PACED_GAPS.replace("a b c", "a b c d e f g h i j").replace("250", "100"))
    body = json.dumps(chat("leave early", stream=True)).encode()
    head = (
        f"POST /api/v1/chat/completions HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer {API_KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + body)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    entry = wait_for(lambda: next((e for e in server.state.journal.entries() if e.client_gone), None))
    assert entry.events_sent is not None and entry.events_sent < len(list(entry.response))  # made again when read
    after = post(server, chat("still there?"))
    assert after.status == 200
    assert after.json()["choices"][0]["message"]["content"] == "a b c d e f g h i j"


# --- headers a scenario puts on the wire ------------------------------------------------------


def test_rule_name_header_is_ascii_even_for_a_non_ascii_rule_name(make_server) -> None:
    """HTTP header values are read as latin-1; UTF-8 bytes there arrive as mojibake
    (`X-Emulator-Warnings` escapes non-ASCII for this reason, `X-Emulator-Rule` does not)."""
    server = make_server("""
        rules:
          - name: "grüße-😀"
            match: {}
            reply: {content: "ok"}
    """)
    response = post(server, chat("hi"))
    assert response.status == 200
    assert [e.rule for e in server.state.journal.entries()] == ["grüße-😀"]
    assert response.headers["X-Emulator-Rule"].isascii(), response.headers["X-Emulator-Rule"]


def test_reply_header_that_cannot_be_sent_is_refused_at_load(tmp_path) -> None:
    """A scripted header value with a newline makes aiohttp refuse to write the headers: a JSON
    reply drops the connection, a stream gets a broken 500. Such a file should not load."""
    (tmp_path / "s.yaml").write_text(
        'rules:\n  - name: bad-header\n    match: {}\n    reply: {content: "ok", headers: {X-Bad: "a\\nb"}}\n',
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError):
        with EmulatorServer(Settings(port=0, scenarios=[str(tmp_path)], watch=False)):
            pass
