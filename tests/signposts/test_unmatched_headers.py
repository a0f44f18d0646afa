"""An unmatched request answered with placeholder prose says so in its headers (issue 30): the unmatched marker, the
nearest rule with what it missed, and the URL of its journal entry, on every face and streamed too."""

from __future__ import annotations

import anthropic
import openai

from tests.conftest import MakeServer
from tests.support.clients import API_KEY, http

RULES = """rules:
  - name: greeting
    match: {last_user: {contains: hello}}
    reply: {content: "Hi!"}
"""


def test_an_unmatched_chat_request_names_its_nearest_rule_and_journal_entry(make_server: MakeServer):
    server = make_server(RULES)
    with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "good morning"}]
        )
    assert raw.status_code == 200
    assert raw.headers["X-Emulator-Unmatched"] == "true"
    nearest = raw.headers["X-Emulator-Nearest-Rule"]
    assert nearest.startswith("greeting (") and ".yaml:2) missed last_user" in nearest, nearest
    assert "good morning" in nearest
    assert "X-Emulator-Rule" not in raw.headers
    journal = http(raw.headers["X-Emulator-Journal"]).json()
    [entry] = journal["entries"]  # the URL names exactly this request's entry
    assert entry["request_id"] == raw.headers["X-ZenMux-RequestId"]
    assert entry["rule"] is None
    assert entry["near_misses"][0]["rule"] == "greeting"


def test_a_matched_request_carries_none_of_them(make_server: MakeServer):
    server = make_server(RULES)
    with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "hello there"}]
        )
    assert raw.headers["X-Emulator-Rule"] == "greeting"
    assert "X-Emulator-Unmatched" not in raw.headers and "X-Emulator-Nearest-Rule" not in raw.headers


def test_every_face_marks_an_unmatched_answer_streamed_or_not(make_server: MakeServer):
    server = make_server(RULES)
    with anthropic.Anthropic(
        base_url=server.anthropic_url,
        api_key=API_KEY,
        max_retries=0,
        default_headers={"anthropic-version": "2023-06-01"},
    ) as claude:
        message = claude.messages.with_raw_response.create(
            model="openai/gpt-5", max_tokens=64, messages=[{"role": "user", "content": "good morning"}]
        )
    with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        response = client.responses.with_raw_response.create(model="openai/gpt-5", input="good morning")
        with client.chat.completions.with_streaming_response.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "good morning"}], stream=True
        ) as stream:
            streamed = dict(stream.headers)
            assert list(stream.iter_lines())
    for headers in (message.headers, response.headers, streamed):
        assert headers["x-emulator-unmatched"] == "true"
        assert headers["x-emulator-nearest-rule"].startswith("greeting (")
        assert "/_emulator/journal?after=" in headers["x-emulator-journal"]


def test_with_no_rule_at_all_the_header_says_so(make_server: MakeServer):
    server = make_server("rules: []\n")
    answer = http(
        f"{server.base_url}/chat/completions",
        b'{"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hi"}]}',
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )
    assert answer.status == 200
    assert answer.headers["x-emulator-unmatched"] == "true"
    assert answer.headers["x-emulator-nearest-rule"] == "none: no rule could answer this face"
