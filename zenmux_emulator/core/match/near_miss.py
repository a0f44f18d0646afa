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


def distance(predicate: Predicate, facts: NeutralRequest) -> float:
    """How far `facts` are from a condition they miss: its own distance (texts: 1 less their
    similarity), else 1."""
    return 1.0 if predicate.distance is None else predicate.distance(facts)


def near_misses(rules: tuple[CompiledRule, ...], facts: NeutralRequest, limit: int = 3) -> list[NearMiss]:
    """The `limit` rules nearest to `facts`: the smallest sum of the distances of the conditions
    they missed (`core/match/distance.py`), then the fewest misses, the smallest share of its
    conditions missed, and the better ranked rule."""
    scored = []
    for rule in rules:
        missed = [p for p in rule.predicates if not p.test(facts)]
        if missed:
            far = round(sum(distance(p, facts) for p in missed), 9)
            scored.append((far, len(missed), len(missed) / len(rule.predicates), rule.rank, rule, missed))
    scored.sort(key=lambda s: s[:4])
    return [
        NearMiss(rule.name, rule.where, tuple(Miss(p.key, p.expected, p.actual(facts)) for p in missed))
        for *_, rule, missed in scored[:limit]
    ]


def no_match_message(index: RuleIndex, facts: NeutralRequest, nearest: list[NearMiss]) -> str:
    """Why nothing answered: used-up `fall_through` rules that matched, then the nearest misses."""
    used_up = [
        f"{rule.name} ({rule.where}) matched but has served all its replies (then: fall_through)"
        for rule in index.candidates(facts)
        if rule.rule.then == "fall_through" and all(p.test(facts) for p in rule.predicates)
    ]
    detail = "; ".join([*used_up, *(str(m) for m in nearest)]) or "no rules are loaded"
    return f"No rule matched this request (strict mode). Nearest: {detail}"
