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

    scenario: str | None = field(init=False)
    """The state machine the rule belongs to (`scenario`), if any."""
    when_state: str | None = field(init=False)
    """The state its scenario must be in for the rule to match (None: any)."""
    moves: bool = field(init=False)
    """It moves its scenario when it answers (`set_state`): the move is made atomically in the state."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "scenario", self.rule.scenario)
        object.__setattr__(self, "when_state", self.rule.when_state)
        object.__setattr__(self, "moves", self.rule.set_state is not None)
        object.__setattr__(self, "name", self.rule.name)
        object.__setattr__(self, "positional", len(self.replies) > 1 or self.rule.then in ("error", "fall_through"))

    @property
    def rank(self) -> tuple[int, int]:
        """Sort key: higher priority first, then file order."""
        return (-self.rule.priority, self.order)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source
