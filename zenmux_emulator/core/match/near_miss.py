"""For a request no rule answered: the closest rules and the conditions each one missed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from zenmux_emulator.core.match.index import RuleIndex
from zenmux_emulator.core.match.predicates import Predicate
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.neutral.request import NeutralRequest


@dataclass(frozen=True, slots=True)
class Miss:
    """One condition a rule wanted and what the request had instead."""

    key: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return f"{self.key}: wanted {self.expected}, got {self.actual}"


@dataclass(frozen=True, slots=True)
class NearMiss:
    rule: str
    where: str
    misses: tuple[Miss, ...]

    def __str__(self) -> str:
        return f"{self.rule} ({self.where}) missed " + "; ".join(str(m) for m in self.misses)

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "where": self.where,
            "misses": [{"key": m.key, "expected": m.expected, "actual": m.actual} for m in self.misses],
        }


def misses(predicates: Iterable[Predicate], facts: NeutralRequest) -> tuple[Miss, ...]:
    """The conditions (a rule's `match` or `expect`) that `facts` fail."""
    return tuple(Miss(p.key, p.expected, p.actual(facts)) for p in predicates if not p.test(facts))


def near_misses(rules: tuple[CompiledRule, ...], facts: NeutralRequest, limit: int = 3) -> list[NearMiss]:
    """The `limit` rules that missed by the fewest conditions (ties: the better ranked rule)."""
    scored = []
    for rule in rules:
        missed = misses(rule.predicates, facts)
        if missed:
            scored.append((len(missed), len(missed) / max(len(rule.predicates), 1), rule.rank, rule, missed))
    scored.sort(key=lambda s: s[:3])  # fewest misses, then the smallest share missed, then rank
    return [NearMiss(rule.name, rule.where, missed) for *_, rule, missed in scored[:limit]]


def no_match_message(index: RuleIndex, facts: NeutralRequest, nearest: list[NearMiss]) -> str:
    """Why nothing answered: used-up `fall_through` rules that matched, then the nearest misses."""
    used_up = [
        f"{rule.name} ({rule.where}) matched but has served all its replies (then: fall_through)"
        for rule in index.candidates(facts)
        if rule.rule.then == "fall_through" and all(p.test(facts) for p in rule.predicates)
    ]
    detail = "; ".join([*used_up, *(str(m) for m in nearest)]) or "no rules are loaded"
    return f"No rule matched this request (strict mode). Nearest: {detail}"
