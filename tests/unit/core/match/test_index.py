"""RuleIndex: candidates come out in rank order (priority, then file order) whatever bucket they sit in."""

from __future__ import annotations

import textwrap
from typing import Any

from tests.support.shipped import build_set
from zenmux_emulator.core.match.index import RuleIndex
from zenmux_emulator.core.match.select import select
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.state.sessions import Session


def index_of(*texts: str) -> RuleIndex:
    return RuleIndex(build_set((f"s{i}.yaml", textwrap.dedent(t)) for i, t in enumerate(texts)).rules)


def facts(text: str, model: str = "openai/gpt-4o", **body: Any) -> ChatRequest:
    return ChatRequest.of({"model": model, "messages": [{"role": "user", "content": text}], **body}, {})


def names(index: RuleIndex, request: ChatRequest) -> list[str]:
    return [rule.name for rule in index.candidates(request)]


MIXED = """
rules:
  - name: by-text
    match: {last_user: {equals: "ping"}}
    reply: {content: text}
  - name: by-model
    priority: 5
    match: {model: openai/gpt-4o}
    reply: {content: model}
  - name: catch-all
    priority: 2
    reply: {content: anything}
  - name: by-text-late
    priority: 2
    match: {last_user: {equals: "ping"}}
    reply: {content: late}
  - name: glob
    match: {model: "openai/*"}
    reply: {content: glob}
  - name: by-model-list
    priority: 9
    match: {model: [openai/gpt-5, openai/gpt-4o]}
    reply: {content: list}
"""


def test_rules_go_into_one_bucket_each():
    index = index_of(MIXED)
    assert set(index.by_text) == {"ping"}
    assert [r.name for r in index.by_text["ping"]] == ["by-text-late", "by-text"]
    assert {model: [r.name for r in rules] for model, rules in index.by_model.items()} == {
        "openai/gpt-4o": ["by-model-list", "by-model"],
        "openai/gpt-5": ["by-model-list"],
    }
    assert [r.name for r in index.anywhere] == ["catch-all", "glob"]


def test_candidates_interleave_the_buckets_by_priority_then_file_order():
    index = index_of(MIXED)
    assert names(index, facts("ping")) == ["by-model-list", "by-model", "catch-all", "by-text-late", "by-text", "glob"]


def test_candidates_leave_out_buckets_that_cannot_match():
    index = index_of(MIXED)
    assert names(index, facts("pong")) == ["by-model-list", "by-model", "catch-all", "glob"]
    assert names(index, facts("ping", model="openai/gpt-5")) == [
        "by-model-list",
        "catch-all",
        "by-text-late",
        "by-text",
        "glob",
    ]
    assert names(index, facts("pong", model="google/gemini-2.5-pro")) == ["catch-all", "glob"]


def test_candidates_are_every_rule_in_rank_order_when_all_could_match():
    scenarios = build_set([("s.yaml", textwrap.dedent(MIXED))])
    request = facts("ping")
    listed = list(RuleIndex(scenarios.rules).candidates(request))
    assert [r.rank for r in listed] == sorted(r.rank for r in listed)


def test_equal_priorities_keep_file_order_across_buckets_and_files():
    index = index_of(
        """
        rules:
          - name: a-text
            match: {last_user: {equals: "go"}}
            reply: {content: a}
        """,
        """
        rules:
          - name: b-any
            reply: {content: b}
          - name: b-model
            match: {model: openai/gpt-4o}
            reply: {content: b}
        """,
    )
    assert names(index, facts("go")) == ["a-text", "b-any", "b-model"]


def test_ignore_case_equals_is_not_bucketed_by_its_text():
    index = index_of("""
        rules:
          - name: folded
            match: {last_user: {equals: "PING", ignore_case: true}}
            reply: {content: x}
    """)
    assert index.by_text == {}
    assert names(index, facts("ping")) == ["folded"]


def test_select_takes_the_best_ranked_candidate_that_matches():
    index = index_of(MIXED)
    session = Session("unit")
    chosen = select(index, facts("ping", model="google/gemini-2.5-pro"), session)
    assert chosen is not None and chosen.rule.name == "catch-all"
    assert session.hits == {}, "a selection is only counted once committed"
    chosen.commit(session)
    assert session.hits == {"catch-all": 1}
    chosen = select(index, facts("ping"), session)
    assert chosen is not None and chosen.rule.name == "by-model-list"


def test_select_returns_none_when_nothing_matches():
    index = index_of("""
        rules:
          - name: only
            match: {last_user: {equals: "x"}}
            reply: {content: x}
    """)
    session = Session("unit")
    assert select(index, facts("y"), session) is None
    assert session.hits == {}
