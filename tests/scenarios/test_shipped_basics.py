"""scenarios/basics.yaml through the official openai SDK: every rule it ships, each test in its own session."""

from __future__ import annotations

import openai

from tests.conftest import FROZEN, SHIPPED
from tests.scenarios.helpers import ask, ask_stream
from tests.support.shipped import load_paths

FILE = SHIPPED / "basics.yaml"
COVERED = {"greeting", "flaky-then-fine", "slow-stream"}


def test_every_rule_of_basics_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == COVERED


def test_greeting_echoes_the_last_user_message(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "HeLLo from the tests", model="openai/gpt-5.4-nano")
    assert answer.rule == "greeting"
    assert answer.content == "Hi HeLLo from the tests! How can I help?"
    assert answer.completion.created == FROZEN
    assert answer.completion.choices[0].finish_reason == "stop"


def test_greeting_uses_the_latest_user_message_only(shipped_client: openai.OpenAI):
    messages = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi hello! How can I help?"},
        {"role": "user", "content": "what is the time"},
    ]
    answer = ask(shipped_client, messages=messages)
    assert answer.rule != "greeting"


def test_greeting_needs_an_openai_model(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "hello there", model="anthropic/claude-sonnet-4")
    assert answer.rule is None
    assert answer.content and not answer.content.startswith("Hi ")


def test_flaky_then_fine_serves_its_replies_in_order_then_repeats_the_last(shipped_client: openai.OpenAI):
    seen = [ask(shipped_client, "Please RETRY ME now") for _ in range(4)]
    assert [a.rule for a in seen] == ["flaky-then-fine"] * 4
    assert [a.content for a in seen] == ["first", "second", "second", "second"]
    assert [a.completion.choices[0].finish_reason for a in seen] == ["stop", "length", "length", "length"]


def test_flaky_then_fine_starts_over_in_another_session(shipped, session, open_client):
    one = open_client(shipped, session + "-one")
    two = open_client(shipped, session + "-two")
    assert ask(one, "retry me").content == "first"
    assert ask(one, "retry me").content == "second"
    assert ask(two, "retry me").content == "first"


def test_slow_stream_streams_its_words(shipped_client: openai.OpenAI):
    rule, content, finishes = ask_stream(shipped_client, "answer slowly please")
    assert rule == "slow-stream"
    assert content == "one two three four five"
    assert finishes == ["stop"]


def test_slow_stream_also_answers_without_streaming(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "answer slowly please")
    assert answer.rule == "slow-stream"
    assert answer.content == "one two three four five"
