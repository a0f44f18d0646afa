"""Rules bucketed by what they match on, built once per scenario set, so a request only
tests the rules that could answer it.

A rule goes into exactly one bucket: its exact `last_user.equals` text if it has one (case
sensitive), else its exact model ids (no glob), else the catch-all list. Candidates come out
in rank order (priority, then file order), so bucketing never changes which rule wins.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from zenmux_emulator.core.match.predicates import is_glob
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.neutral.request import NeutralRequest


def _rank(rule: CompiledRule) -> tuple[int, int]:
    return rule.rank


class RuleIndex:
    """Candidate rules for a request, best ranked first."""

    __slots__ = ("anywhere", "by_model", "by_text")

    def __init__(self, rules: Iterable[CompiledRule]) -> None:
        self.by_text: dict[str, list[CompiledRule]] = {}
        self.by_model: dict[str, list[CompiledRule]] = {}
        self.anywhere: list[CompiledRule] = []
        for rule in rules:  # already in rank order
            match = rule.rule.match
            last_user = match.last_user
            models = [match.model] if isinstance(match.model, str) else match.model
            if last_user is not None and last_user.equals is not None and not last_user.ignore_case:
                self.by_text.setdefault(last_user.equals, []).append(rule)
            elif models and not any(is_glob(m) for m in models):
                for model in models:
                    self.by_model.setdefault(model, []).append(rule)
            else:
                self.anywhere.append(rule)

    def candidates(self, facts: NeutralRequest) -> Iterable[CompiledRule]:
        """Every rule that could match, in rank order (one bucket's list as it is: the usual case)."""
        by_text = self.by_text.get(facts.last_user) if self.by_text else None
        by_model = self.by_model.get(facts.model) if self.by_model else None
        anywhere = self.anywhere
        if by_model is None:
            if by_text is None or not anywhere:
                return by_text or anywhere
        elif by_text is None and not anywhere:
            return by_model
        return heapq.merge(*(rules for rules in (anywhere, by_model, by_text) if rules), key=_rank)
