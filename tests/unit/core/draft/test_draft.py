"""render/draft.py: stop sequences and the token budget applied to a reply, and the reasons they give."""

from __future__ import annotations

import textwrap

from faker import Faker

from tests.support.shipped import build_set
from zenmux_emulator.core.draft.draft import Kit, apply_limits, draft_reply
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.signatures import Signer


def limits(max_tokens: int | None = None, *stop: str) -> tuple[tuple[str, ...], int | None]:
    return tuple(stop), max_tokens


def test_no_limits_leave_the_text_alone():
    assert apply_limits("one two three", *limits()) == ("one two three", None)


def test_stop_cuts_before_the_sequence_which_is_not_included():
    assert apply_limits("Hello world. STOP and more", *limits(None, "STOP")) == ("Hello world. ", "stop")


def test_the_earliest_of_several_stop_sequences_wins():
    assert apply_limits("a, b; c", *limits(None, ";", ",")) == ("a", "stop")


def test_a_stop_sequence_at_the_start_leaves_nothing():
    assert apply_limits("END of text", *limits(None, "END")) == ("", "stop")


def test_a_stop_sequence_that_does_not_occur_changes_nothing():
    assert apply_limits("one two", *limits(None, "three")) == ("one two", None)


def test_an_empty_stop_sequence_is_ignored():
    assert apply_limits("one two", *limits(None, "")) == ("one two", None)


def test_max_tokens_cuts_with_length():
    assert apply_limits("one two three four", *limits(2)) == ("one two", "length")
    assert apply_limits("one two", *limits(2)) == ("one two", None)


def test_stop_is_applied_before_max_tokens():
    # The stop sequence comes first within the budget: the reply ends at it with "stop".
    assert apply_limits("one two. three four five", *limits(4, ".")) == ("one two", "stop")
    # The budget runs out before the stop sequence is reached: "length".
    text, reason = apply_limits("one two three four. five", *limits(2, "."))
    assert (text, reason) == ("one two", "length")


def test_cut_text_fits_the_budget():
    text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, 你好 😀"
    for budget in range(1, tokens.count(text) + 1):
        cut, _ = apply_limits(text, *limits(budget))
        assert tokens.count(cut) <= budget and text.startswith(cut)


def facts(text: str, model: str = "openai/gpt-4o") -> ChatRequest:
    return ChatRequest.of({"model": model, "messages": [{"role": "user", "content": text}]})


def reply(compiled, rule, request: ChatRequest, request_limits: tuple[tuple[str, ...], int | None], seed: int = 1):
    stop, max_tokens = request_limits
    limits = {"stop": list(stop)} if stop else {}
    if max_tokens is not None:
        limits["max_completion_tokens"] = max_tokens
    ask = ChatRequest.of({**request.body, **limits})
    return draft_reply(compiled, rule, ask, ask.model, Kit(seed, Signer.from_settings(seed, None), Faker()))


def test_draft_reply_reports_the_cut_and_counts_the_cut_text():
    (rule,) = build_set(
        [
            (
                "s.yaml",
                textwrap.dedent("""
        rules:
          - name: long
            reply: {content: "alpha beta gamma delta", finish_reason: tool_calls}
    """),
            )
        ]
    ).rules
    draft = reply(rule.replies[0], rule.name, facts("x"), limits(2))
    assert (draft.content, draft.finish_reason) == ("alpha beta", "length")
    assert draft.usage["completion_tokens"] == 2
    uncut = reply(rule.replies[0], rule.name, facts("x"), limits())
    assert (uncut.content, uncut.finish_reason) == ("alpha beta gamma delta", "tool_calls")


def test_default_reply_is_deterministic_per_conversation_and_seed():
    one = reply(None, None, facts("same"), limits(), seed=1).content
    two = reply(None, None, facts("same"), limits(), seed=1).content
    other_seed = reply(None, None, facts("same"), limits(), seed=2).content
    assert one and one == two
    assert one != other_seed
