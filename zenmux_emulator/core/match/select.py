"""Pick the rule that answers: the best ranked candidate whose every predicate holds, and the
reply its sequence is at for this session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from zenmux_emulator.core.draft.compiled import CompiledReply
from zenmux_emulator.core.match.index import RuleIndex
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.state.scenario_states import STARTED
from zenmux_emulator.state.sessions import Session

NO_STATES: Mapping[str, str] = MappingProxyType({})


@dataclass(slots=True)
class Selection:
    """The answering rule, the reply chosen (None: its sequence is used up) and the hit number.
    Made on every matched request and never changed: slotted and not frozen, as the endpoint's step
    values are (a frozen dataclass sets each field through `object.__setattr__`)."""

    rule: CompiledRule
    reply: CompiledReply | None
    hit: int

    def commit(self, session: Session) -> None:
        """Count the hit, once the reply was rendered: a reply that failed is not used up."""
        session.hits[self.rule.name] = self.hit + 1


def reply_at(rule: CompiledRule, hit: int) -> tuple[bool, CompiledReply | None]:
    """(answers, reply) for the `hit`-th match of the rule (0-based)."""
    replies = rule.replies
    if hit < len(replies):
        return True, replies[hit]
    then = rule.rule.then
    if then == "repeat_last":
        return True, replies[-1]
    if then == "cycle":
        return True, replies[hit % len(replies)]
    if then == "error":
        return True, None
    return False, None  # fall_through: the rule steps aside


def forced(rule: CompiledRule, session: Session) -> Selection:
    """The selection of a rule named by `X-Emulator-Rule`, at its place in the session's sequence."""
    hit = session.hits.get(rule.name, 0)
    answers, reply = reply_at(rule, hit)
    return Selection(rule=rule, reply=reply if answers else None, hit=hit)


def select(
    index: RuleIndex, facts: NeutralRequest, session: Session, states: Mapping[str, str] = NO_STATES
) -> Selection | None:
    """The selection for this request (call `commit` once answered); None when nothing matches.
    `states`: where each scenario stands for this request (one not listed: `started`)."""
    for rule in index.candidates(facts):
        if rule.when_state is not None and states.get(rule.scenario or "", STARTED) != rule.when_state:
            continue
        for predicate in rule.predicates:
            if not predicate.test(facts):
                break
        else:
            hit = session.hits.get(rule.name, 0)
            answers, reply = reply_at(rule, hit)
            if answers:
                return Selection(rule=rule, reply=reply, hit=hit)
    return None
