"""core/draft/compiled.py's fixed texts: a reply whose texts depend on it alone is drafted from
what was worked out at load, the same draft as every step worked out for the request gives."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from faker import Faker

from tests.support.shipped import build_set
from zenmux_emulator.core.draft.draft import Kit, draft_reply, drafted
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.foundation.signatures import Signer

RULES = textwrap.dedent("""
    rules:
      - name: plain
        reply: {content: "alpha beta gamma delta"}
      - name: refuses
        reply: {refusal: "I cannot help with that."}
      - name: empty
        reply: {finish_reason: content_filter}
      - name: overridden
        reply: {content: "one two", model: openai/gpt-4o, usage: {completion_tokens: 40}, service_tier: flex}
      - name: templated
        reply: {content: "you said {{ request.last_user }}"}
      - name: calls
        reply: {tool_calls: [{name: lookup, arguments: {q: x}}]}
      - name: reasons
        reply: {content: "so it is", reasoning: "thinking it over"}
""")
FIXED = {"plain", "refuses", "empty", "overridden"}

REQUESTS: list[dict[str, Any]] = [
    {},
    {"stop": ["gamma"]},
    {"max_completion_tokens": 2},
    {"reasoning_effort": "high"},
    {"reasoning": {"enabled": False}},
    {"response_format": {"type": "json_object"}},
    {"tool_choice": "required", "tools": [{"type": "function", "function": {"name": "lookup"}}]},
    {"tool_choice": "auto", "tools": [{"type": "function", "function": {"name": "lookup"}}]},
]


def ask(options: dict[str, Any]) -> ChatRequest:
    return ChatRequest.of(
        {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello there"}], **options}
    )


def kit() -> Kit:
    return Kit(7, Signer.from_settings(7, None), Faker())


def test_only_replies_whose_texts_depend_on_them_alone_have_fixed_texts() -> None:
    rules = build_set([("s.yaml", RULES)]).rules
    assert {rule.name for rule in rules if rule.replies[0].fixed is not None} == FIXED


@pytest.mark.parametrize("options", REQUESTS, ids=lambda options: ",".join(options) or "plain")
@pytest.mark.parametrize("reasons", [None, True, False])
def test_a_reply_is_drafted_as_every_step_worked_out_for_the_request_would(
    options: dict[str, Any], reasons: bool | None
) -> None:
    for rule in build_set([("s.yaml", RULES)]).rules:
        reply = rule.replies[0]
        fast = draft_reply(reply, rule.name, ask(options), "openai/gpt-5", kit(), reasons)
        whole = drafted(reply, rule.name, ask(options), "openai/gpt-5", kit(), reasons)
        assert fast == whole, rule.name


def test_each_draft_of_fixed_texts_is_its_own() -> None:
    (rule, *_) = build_set([("s.yaml", RULES)]).rules
    one = draft_reply(rule.replies[0], rule.name, ask({}), "openai/gpt-5", kit())
    two = draft_reply(rule.replies[0], rule.name, ask({}), "openai/gpt-5", kit())
    assert one == two and one.usage is not two.usage and one.tool_calls is not two.tool_calls
    assert one.usage["prompt_tokens"] > 0 and one.usage["completion_tokens"] == 4
