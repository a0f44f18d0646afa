"""Rules and replies as the request path uses them: predicates and templates compiled once at load."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.gateway.limits import GatewayConfig
from zenmux_emulator.match.predicates import Predicate
from zenmux_emulator.scenario.schema import ModelSpec, Reply, Rule


@dataclass(frozen=True, slots=True)
class CompiledReply:
    """A reply with its text templates compiled (a plain string stays a string)."""

    spec: Reply
    content: str | Any | None
    refusal: str | Any | None
    reasoning: str | Any | None = None
    templated: bool = field(init=False)
    """Some text is a template, rendered per request; otherwise the texts are used as they are."""

    def __post_init__(self) -> None:
        texts = (self.content, self.refusal, self.reasoning)
        object.__setattr__(self, "templated", any(not isinstance(t, str | None) for t in texts))


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule ready to match: where it came from, its rank, predicates and replies."""

    rule: Rule
    source: str
    line: int | None
    order: int
    predicates: tuple[Predicate, ...]
    replies: tuple[CompiledReply, ...]
    expectations: tuple[Predicate, ...] = ()

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def rank(self) -> tuple[int, int]:
        """Sort key: higher priority first, then file order."""
        return (-self.rule.priority, self.order)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source


@dataclass(frozen=True, slots=True)
class ScenarioSet:
    """An immutable, fully compiled set of scenario files; swapped whole on reload."""

    rules: tuple[CompiledRule, ...] = ()
    models: dict[str, ModelSpec] = field(default_factory=dict)
    catalogue_closed: bool = False
    catalogue: dict[str, ModelSpec] = field(default_factory=dict)
    """The models served: the declared ones over the built-in ones, or only the declared when closed."""
    api_keys: frozenset[str] = frozenset()
    files: tuple[str, ...] = ()
    gateway: GatewayConfig = field(default_factory=GatewayConfig)
    """Rate limits and balances from the files' settings."""

    def rule(self, name: str) -> CompiledRule | None:
        return next((r for r in self.rules if r.name == name), None)
