"""A scripted reply as drafting uses it: its text templates compiled once at load."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.scenario.schema import Reply


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

    def __post_init__(self) -> None:
        texts = (self.content, self.refusal, self.reasoning)
        object.__setattr__(self, "templated", any(not isinstance(t, str | None) for t in texts))
        spec = self.spec
        object.__setattr__(self, "completes", spec.fault is None and spec.error is None and spec.raw is None)
