"""A scripted reply as drafting uses it: its text templates compiled once at load, and its texts
as sent to a request that asks nothing of them worked out then too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.foundation import tokens
from zenmux_emulator.scenario.schema import Reply


@dataclass(frozen=True, slots=True)
class FixedTexts:
    """A reply's texts as every request that asks nothing of them gets them (no stop sequence, no
    token limit, no structured output, no forced tool call, no reasoning): the same for each, so
    made once at load."""

    content: str | None
    refusal: str | None
    tokens: int
    """The completion's tokens: the content's and the refusal's."""
    finish_reason: str


@dataclass(frozen=True, slots=True)
class CompiledReply:
    """A reply with its text templates compiled (a plain string stays a string)."""

    spec: Reply
    content: str | Any | None
    refusal: str | Any | None
    reasoning: str | Any | None = None
    templated: bool = field(init=False)
    """Some text is a template, rendered per request; otherwise the texts are used as they are."""
    completes: bool = field(init=False)
    """The reply is a completion to draft: it scripts no fault, error or raw body."""
    fixed: FixedTexts | None = field(init=False)
    """Its texts as sent when the request asks nothing of them; None when the reply itself makes
    them depend on the request (templates, tool calls, reasoning, citations, a recorded reply)."""

    def __post_init__(self) -> None:
        texts = (self.content, self.refusal, self.reasoning)
        object.__setattr__(self, "templated", any(not isinstance(t, str | None) for t in texts))
        spec = self.spec
        object.__setattr__(self, "completes", spec.fault is None and spec.error is None and spec.raw is None)
        object.__setattr__(self, "fixed", fixed_texts(self))


def fixed_texts(reply: CompiledReply) -> FixedTexts | None:
    """What `draft_reply` makes of the reply's texts for a request that asks nothing of them, when
    that depends on the reply alone."""
    spec = reply.spec
    if reply.templated or not reply.completes or spec.verbatim or spec.tool_calls or spec.annotations:
        return None
    if reply.reasoning is not None:
        return None
    content, refusal = reply.content, reply.refusal
    if content is None and refusal is None:
        content = ""
    counted = (tokens.count(content) if content else 0) + (tokens.count(refusal) if refusal else 0)
    return FixedTexts(content, refusal, counted, spec.finish_reason or "stop")
