"""scenarios/conversation.yaml through the official openai SDK: every rule it ships, each test in its own session."""

from __future__ import annotations

import re

import openai
import pytest

from tests.conftest import SHIPPED
from tests.scenarios.helpers import ask, ask_stream
from tests.support.shipped import load_paths

FILE = SHIPPED / "conversation.yaml"
COVERED = {
    "pirate-system-prompt",
    "second-turn",
    "refuse-secrets",
    "tagged-by-metadata",
    "header-routed",
    "streaming-only",
    "non-streaming",
}

PIRATE = [{"role": "system", "content": "You are a PIRATE, talk like a pirate."}, {"role": "user", "content": "hi"}]


def test_every_rule_of_conversation_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == COVERED


def test_pirate_system_prompt_answers_on_the_first_turn_with_a_seeded_name(shipped, session, open_client):
    first = ask(open_client(shipped, session + "-a"), messages=PIRATE)
    again = ask(open_client(shipped, session + "-b"), messages=PIRATE)
    assert first.rule == "pirate-system-prompt"
    assert re.fullmatch(r"Arr, [A-Z][a-z]+ at yer service!", first.content or ""), first.content
    assert again.content == first.content  # fake values are seeded by the conversation


def test_pirate_system_prompt_also_reads_developer_messages(shipped_client: openai.OpenAI):
    messages = [{"role": "developer", "content": "be a pirate"}, {"role": "user", "content": "hi"}]
    assert ask(shipped_client, messages=messages).rule == "pirate-system-prompt"


def test_pirate_system_prompt_is_silent_after_the_first_turn(shipped_client: openai.OpenAI):
    messages = [*PIRATE, {"role": "assistant", "content": "Arr!"}, {"role": "user", "content": "more"}]
    assert ask(shipped_client, messages=messages).rule is None


def test_pirate_in_a_user_message_is_not_a_system_prompt(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "talk like a pirate").rule is None


@pytest.mark.parametrize("assistant_turns", [1, 3])
def test_second_turn_reports_the_turn(shipped_client: openai.OpenAI, assistant_turns: int):
    messages: list[dict[str, str]] = []
    for i in range(assistant_turns):
        messages += [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]
    messages.append({"role": "user", "content": "and then?"})
    answer = ask(shipped_client, messages=messages)
    assert answer.rule == "second-turn"
    assert answer.content == f"This is turn {assistant_turns} of our chat."


def test_second_turn_needs_at_least_one_assistant_message(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "and then?").rule is None


def test_refuse_secrets_answers_with_a_refusal(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "what is the admin password?")
    message = answer.completion.choices[0].message
    assert answer.rule == "refuse-secrets"
    assert message.refusal == "I can't help with that."
    assert message.content is None
    assert answer.completion.choices[0].finish_reason == "content_filter"


def test_tagged_by_metadata_overrides_usage_and_service_tier(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "anything", metadata={"suite": "billing"})
    usage = answer.completion.usage
    assert answer.rule == "tagged-by-metadata"
    assert answer.content == "Billing suite answer."
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (1000, 20, 1020)
    assert usage.prompt_tokens_details is not None and usage.prompt_tokens_details.cached_tokens == 600
    assert answer.completion.service_tier == "default"


def test_tagged_by_metadata_needs_the_exact_value(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "anything", metadata={"suite": "billing-v2"}).rule is None
    assert ask(shipped_client, "anything", metadata={"team": "billing"}).rule is None


def test_header_routed_answers_for_the_canary_header_in_any_case(shipped_client: openai.OpenAI):
    for name in ("X-Test-Case", "x-test-case", "X-TEST-CASE"):
        answer = ask(shipped_client, "status?", extra_headers={name: "canary"})
        assert answer.rule == "header-routed", name
        assert answer.content == "Canary build answering."
        assert answer.completion.model == "openai/gpt-5-canary"


def test_header_routed_compares_the_value_exactly(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "status?", extra_headers={"X-Test-Case": "Canary"}).rule is None


def test_streaming_only_wins_by_priority_when_streaming(shipped_client: openai.OpenAI):
    rule, content, finishes = ask_stream(shipped_client, "stream check")
    assert rule == "streaming-only"
    assert content == "You are streaming."
    assert finishes == ["stop"]


def test_streaming_only_cuts_two_tokens_per_chunk(shipped_client: openai.OpenAI):
    stream = shipped_client.chat.completions.create(
        model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "stream check"}], stream=True
    )
    with stream:
        deltas = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert deltas == ["You are", " streaming", "."]


def test_non_streaming_answers_the_same_text_without_stream(shipped_client: openai.OpenAI):
    answer = ask(shipped_client, "stream check")
    assert answer.rule == "non-streaming"
    assert answer.content == "You are not streaming."


def test_stream_check_is_an_exact_match(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "stream check!").rule is None


def test_files_keep_their_order_basics_before_conversation(shipped_client: openai.OpenAI):
    # Both greeting (basics.yaml) and pirate-system-prompt (conversation.yaml) match; the earlier file wins.
    messages = [{"role": "system", "content": "pirate"}, {"role": "user", "content": "hello"}]
    assert ask(shipped_client, messages=messages).rule == "greeting"
