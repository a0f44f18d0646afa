"""near_misses: the rules a request came closest to, and what each one missed."""

from __future__ import annotations

import textwrap
from typing import Any

from tests.support.shipped import build_set
from zenmux_emulator.core.match.near_miss import Miss, NearMiss, misses, near_misses
from zenmux_emulator.faces.chat.request import ChatRequest

RULES = """
rules:
  - name: one-of-three
    match: {model: "openai/*", stream: false, last_user: "hello"}
    reply: {content: x}
  - name: all-three
    match: {model: "google/*", stream: true, last_user: "hello"}
    reply: {content: x}
  - name: one-of-one
    match: {last_user: "hello"}
    reply: {content: x}
  - name: matches
    match: {model: "openai/*"}
    reply: {content: x}
  - name: one-of-one-later
    match: {metadata: {suite: billing}}
    reply: {content: x}
"""


def scenario_rules(text: str = RULES):
    return build_set([("s.yaml", textwrap.dedent(text))]).rules


def facts(
    text: str = "bye", model: str = "openai/gpt-4o", headers: dict[str, str] | None = None, **body: Any
) -> ChatRequest:
    return ChatRequest.of({"model": model, "messages": [{"role": "user", "content": text}], **body}, headers or {})


def test_misses_name_the_condition_what_was_wanted_and_what_came():
    rule = next(r for r in scenario_rules() if r.name == "all-three")
    assert misses(rule.predicates, facts()) == (
        Miss("stream", "stream is true", "stream is false"),
        Miss("model", "'google/*'", "'openai/gpt-4o'"),
        Miss("last_user", "contains 'hello'", "'bye'"),
    )
    assert str(Miss("last_user", "contains 'hello'", "'bye'")) == "last_user: wanted contains 'hello', got 'bye'"


def test_rules_that_match_are_not_near_misses():
    assert "matches" not in [m.rule for m in near_misses(scenario_rules(), facts(), limit=10)]


def test_fewest_missed_conditions_first_then_rank():
    ranked = [m.rule for m in near_misses(scenario_rules(), facts(), limit=10)]
    # one condition missed each, in rank order; then the rule that missed all three.
    assert ranked == ["one-of-three", "one-of-one", "one-of-one-later", "all-three"]


def test_a_rule_missing_one_condition_is_nearer_than_one_missing_two():
    rules = scenario_rules("""
        rules:
          - name: misses-two-of-five
            match: {stream: true, turn: 0, model: "openai/*", tools: [search], metadata: {a: b}}
            reply: {content: x}
          - name: misses-one-of-one
            match: {last_user: "hello"}
            reply: {content: x}
    """)
    # near_miss.py: "The `limit` rules that missed by the fewest conditions (ties: the better ranked rule)".
    assert [m.rule for m in near_misses(rules, facts())] == ["misses-one-of-one", "misses-two-of-five"]


def test_limit_keeps_the_nearest():
    found = near_misses(scenario_rules(), facts(), limit=2)
    assert len(found) == 2
    assert [m.rule for m in found] == ["one-of-three", "one-of-one"]


def test_near_miss_says_where_the_rule_is_and_reads_as_one_line():
    found = near_misses(scenario_rules(), facts(), limit=1)[0]
    assert found.where == "s.yaml:3"
    assert str(found) == "one-of-three (s.yaml:3) missed last_user: wanted contains 'hello', got 'bye'"
    assert NearMiss.as_dict(found) == {
        "rule": "one-of-three",
        "where": "s.yaml:3",
        "misses": [{"key": "last_user", "expected": "contains 'hello'", "actual": "'bye'"}],
    }


def test_absent_header_and_metadata_read_as_absent():
    rules = scenario_rules("""
        rules:
          - name: header
            match: {headers: {X-Case: one}, metadata: {suite: {starts_with: bill}}}
            reply: {content: x}
    """)
    (found,) = near_misses(rules, facts())
    assert [str(m) for m in found.misses] == [
        "metadata.suite: wanted starts with 'bill', got absent",
        "headers.X-Case: wanted equals 'one', got absent",
    ]


def test_long_text_is_clipped_in_the_report():
    (found,) = near_misses(
        scenario_rules("""
        rules:
          - name: short
            match: {last_user: {equals: "short"}}
            reply: {content: x}
    """),
        facts("word " * 50 + "\nend"),
    )
    actual = found.misses[0].actual
    assert len(actual) <= 62 and actual.endswith("…'") and "\n" not in actual


def test_no_rules_no_near_misses():
    assert near_misses((), facts()) == []


def test_api_narrows_a_rule_to_a_face_and_says_which_it_wanted():
    scenarios = build_set(
        [
            (
                "s.yaml",
                textwrap.dedent("""
        rules:
          - name: chat-only
            match: {api: chat, last_user: hi}
            reply: {content: chat}
          - name: elsewhere
            match: {api: [chat], last_user: bye}
            reply: {content: x}
    """),
            )
        ]
    )
    assert [p.test(facts("hi")) for p in scenarios.rules[0].predicates] == [True, True]
    [api] = [p for p in scenarios.rules[0].predicates if p.key == "api"]
    assert (api.expected, api.actual(facts("hi"))) == ("chat", "chat")


def test_each_text_condition_tests_its_own_text():
    """A rule with last_user, system and any_message checks each against its own condition (the
    predicates once shared one closure variable, so last_user was tested with the system's text match)."""
    [rule] = scenario_rules("""
    rules:
      - name: three-texts
        match: {last_user: hello, system: {contains: terse}, any_message: {contains: hel}}
        reply: {content: x}
    """)
    ok = ChatRequest.of(
        {
            "model": "openai/gpt-5",
            "messages": [{"role": "system", "content": "be terse"}, {"role": "user", "content": "hello"}],
        }
    )
    assert misses(rule.predicates, ok) == ()
    assert [m.key for m in misses(rule.predicates, facts("hello"))] == ["system"]
