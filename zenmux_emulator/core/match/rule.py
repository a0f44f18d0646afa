"""A rule as matching uses it: its predicates compiled once at load, its replies ready to draft."""

from __future__ import annotations

from dataclasses import dataclass, field

from zenmux_emulator.core.draft.compiled import CompiledReply
from zenmux_emulator.core.match.predicates import Predicate
from zenmux_emulator.scenario.schema import Rule


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

    name: str = field(init=False)
    """The rule's name (read on every request: a field, not a property)."""
    positional: bool = field(init=False)
    """Whether which reply answers depends on the position: a sequence, or one reply that ends
    (only such a selection's position is claimed in the state). Worked out once, at load."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.rule.name)
        object.__setattr__(self, "positional", len(self.replies) > 1 or self.rule.then in ("error", "fall_through"))

    @property
    def rank(self) -> tuple[int, int]:
        """Sort key: higher priority first, then file order."""
        return (-self.rule.priority, self.order)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source
