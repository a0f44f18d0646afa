"""Unmatched requests: strict mode answers 404 `emulator_no_match` naming the nearest rules; otherwise a
default reply, with the near misses kept in the journal."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable

import openai
import pytest

from tests.conftest import MakeServer
from tests.scenarios.helpers import MODEL, ask, get_json, post_chat

OpenClient = Callable[..., openai.OpenAI]

RULES = """
rules:
  - name: greet
    match: {last_user: {contains: "hello"}}
    reply: {content: hi}
  - name: greet-gemini
    match: {model: "google/*", last_user: {contains: "hello"}}
    reply: {content: hi gemini}
  - name: tools-only
    match: {tools: [get_weather], turn: 0, stream: true}
    reply: {content: weather}
  - name: admins
    match: {headers: {X-Role: admin}}
    reply: {content: admin}
"""


def test_strict_unmatched_is_404_naming_the_nearest_rules_and_what_they_missed(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    client = open_client(make_server(RULES, strict=True), session)
    with pytest.raises(openai.NotFoundError) as caught:
        ask(client, "bye")
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["type"] == "emulator_no_match"
    message = body["message"]
    assert "last_user: wanted contains 'hello', got 'bye'" in message
    assert "greet (" in message and "s0.yaml:3" in message  # the rule and where it is
    assert "admins" in message and "headers.X-Role: wanted equals 'admin', got absent" in message


def test_strict_names_first_the_nearest_rules(make_server: MakeServer, session: str, open_client: OpenClient):
    client = open_client(make_server(RULES, strict=True), session)
    with pytest.raises(openai.NotFoundError) as caught:
        ask(client, "bye", model="google/gemini-2.5-pro")
    message = caught.value.body["message"]  # type: ignore[index]
    # Nearest = the smallest sum of the missed conditions' distances (near_miss.py's contract), then the fewest
    # misses, the smallest share: greet-gemini and greet missed 'hello' alike (greet-gemini one of two),
    # admins missed a header (a distance of 1), tools-only missed two (stream, tools).
    order = [name for name in ("greet-gemini (", "greet (", "admins (", "tools-only (") if name in message]
    assert order == ["greet-gemini (", "greet (", "admins ("]
    assert message.index("greet-gemini (") < message.index("greet (") < message.index("admins (")


def test_strict_404_is_not_retried_by_the_sdk(make_server: MakeServer, session: str, open_client: OpenClient):
    server = make_server(RULES, strict=True)
    client = open_client(server, session, max_retries=2)
    with pytest.raises(openai.NotFoundError):
        ask(client, "bye")
    entries = list(server.state.journal.entries(session=session))
    assert len(entries) == 1
    assert (entries[0].status, entries[0].error_type) == (404, "emulator_no_match")
    assert "greet" in [miss["rule"] for miss in entries[0].near_misses]


def test_strict_still_answers_matched_requests(make_server: MakeServer, session: str, open_client: OpenClient):
    client = open_client(make_server(RULES, strict=True), session)
    assert ask(client, "hello there").content == "hi"


def test_strict_with_no_rules_says_so(make_server: MakeServer):
    response = post_chat(
        make_server("rules: []\n", strict=True), {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    )
    assert response.status == 404
    error = response.json()["error"]
    assert error["type"] == "emulator_no_match"
    assert "no rules are loaded" in error["message"]


def test_strict_after_a_fall_through_sequence_ends_does_not_claim_no_rules_are_loaded(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    client = open_client(
        make_server(
            """
        rules:
          - name: once
            replies: [{content: only once}]
            then: fall_through
    """,
            strict=True,
        ),
        session,
    )
    assert ask(client, "hi").content == "only once"
    with pytest.raises(openai.NotFoundError) as caught:
        ask(client, "hi")
    message = caught.value.body["message"]  # type: ignore[index]
    assert "no rules are loaded" not in message, message
    assert "once" in message, message


def test_non_strict_unmatched_gets_a_default_reply_and_near_misses_in_the_journal(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(RULES)
    client = open_client(server, session)
    first = ask(client, "bye")
    again = ask(client, "bye")
    assert first.rule is None
    assert first.content and first.content == again.content  # seeded by the conversation
    assert first.completion.choices[0].finish_reason == "stop"
    entries = list(server.state.journal.entries(session=session))
    assert [e.status for e in entries] == [200, 200]
    assert entries[0].rule is None
    misses = entries[0].near_misses
    greet = next(miss for miss in misses if miss["rule"] == "greet")
    assert greet["where"].endswith("s0.yaml:3")
    assert greet["misses"] == [{"key": "last_user", "expected": "contains 'hello'", "actual": "'bye'"}]


def test_the_journal_api_shows_the_near_misses(make_server: MakeServer, session: str, open_client: OpenClient):
    server = make_server(RULES)
    ask(open_client(server, session), "bye")
    (entry,) = server.state.journal.entries(session=session)
    listed = get_json(f"{server.origin}/_emulator/journal?session={urllib.parse.quote(session)}")["entries"]
    assert len(listed) == 1
    assert listed[0]["near_misses"] == entry.near_misses != []


def test_a_matched_request_has_no_near_misses(make_server: MakeServer, session: str, open_client: OpenClient):
    server = make_server(RULES)
    ask(open_client(server, session), "hello")
    (entry,) = server.state.journal.entries(session=session)
    assert (entry.rule, entry.reply_index, entry.near_misses) == ("greet", 0, [])


NEAR = """
rules:
  - name: hello-inspector
    match: {model: "openai/gpt-5.4-mini", last_user: {contains: "hello inspector"}}
    reply: {content: hi}
  - name: weather-oslo
    match: {last_user: {contains: "weather in Oslo"}}
    reply: {content: sunny}
"""


def test_nearest_is_the_rule_whose_text_is_closest_not_the_first_that_missed_as_few(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(NEAR, strict=True)
    with pytest.raises(openai.NotFoundError) as caught:
        ask(open_client(server, session), "weather in Olso please")
    message = caught.value.body["message"]  # type: ignore[index]
    # each missed one condition (hello-inspector one of two, and it comes first in the file); the Oslo
    # rule wanted a text much nearer "weather in Olso please"
    assert message.index("weather-oslo (") < message.index("hello-inspector (")
    [entry] = get_json(f"{server.origin}/_emulator/journal?session={session}")["entries"]
    assert [m["rule"] for m in entry["near_misses"]] == ["weather-oslo", "hello-inspector"]


def test_a_near_model_name_ranks_by_its_closeness_too(make_server: MakeServer, session: str, open_client: OpenClient):
    rules = """
rules:
  - name: far-model
    match: {model: "anthropic/claude-opus-4.1"}
    reply: {content: a}
  - name: near-model
    match: {model: "openai/gpt-5.4-nano"}
    reply: {content: b}
"""
    server = make_server(rules, strict=True)
    with pytest.raises(openai.NotFoundError):
        ask(open_client(server, session), "x", model="openai/gpt-5.4-mini")
    [entry] = get_json(f"{server.origin}/_emulator/journal?session={session}")["entries"]
    assert [m["rule"] for m in entry["near_misses"]] == ["near-model", "far-model"]
