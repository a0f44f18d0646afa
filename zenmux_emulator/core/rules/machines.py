"""The scenarios' state machines as the rules draw them (`scenario`, `when_state`, `set_state`):
their states and moves, a `when_state` no move reaches from `started`, and a state no rule leaves.
`validate` and the server's log warn about both; the inspector draws them (`GET /_emulator/states`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.foundation.errors import ScenarioProblem
from zenmux_emulator.state.scenario_states import STARTED


@dataclass(frozen=True, slots=True)
class Move:
    """An edge: `rule` moves the scenario from `source` (None: any state) to `target`; a timed
    move's second leg (`rule`'s `after_s` passed) has `after_s` set."""

    source: str | None
    target: str
    rule: str
    after_s: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "rule": self.rule, "after_s": self.after_s}


@dataclass(slots=True)
class Machine:
    """One scenario: its states (`started` first), moves, and the rules that match in each state."""

    name: str
    states: list[str] = field(default_factory=lambda: [STARTED])
    moves: list[Move] = field(default_factory=list)
    matching: dict[str, list[str]] = field(default_factory=dict)
    """The rules with `when_state` by state (rules without one match in every state: key '*')."""

    def add(self, state: str) -> None:
        if state not in self.states:
            self.states.append(state)

    def reachable(self) -> set[str]:
        """The states some series of moves reaches from `started`."""
        seen, todo = {STARTED}, [STARTED]
        while todo:
            state = todo.pop()
            for move in self.moves:
                if move.source in (None, state) and move.target not in seen:
                    seen.add(move.target)
                    todo.append(move.target)
        return seen

    def unreachable(self) -> list[str]:
        """The `when_state`s no series of moves reaches (only `PUT /_emulator/states` gets there)."""
        reached = self.reachable()
        return [state for state in self.matching if state != "*" and state not in reached]

    def dead_ends(self) -> list[str]:
        """The states reached that no move leaves for another state."""
        reached = self.reachable()
        return [
            state
            for state in self.states
            if state in reached
            and not any(move.source in (None, state) and move.target != state for move in self.moves)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "states": list(self.states),
            "moves": [move.as_dict() for move in self.moves],
            "matching": {state: list(rules) for state, rules in self.matching.items()},
            "unreachable": self.unreachable(),
            "dead_ends": self.dead_ends(),
        }


def machines(rules: Iterable[CompiledRule]) -> dict[str, Machine]:
    """Each scenario's machine, drawn from its rules (in rank order)."""
    found: dict[str, Machine] = {}
    for rule in rules:
        if rule.scenario is None:
            continue
        machine = found.setdefault(rule.scenario, Machine(rule.scenario))
        if rule.when_state is not None:
            machine.add(rule.when_state)
        machine.matching.setdefault(rule.when_state or "*", []).append(rule.name)
        target = rule.rule.moves_to
        if target is None:
            continue
        machine.add(target.to)
        machine.moves.append(Move(rule.when_state, target.to, rule.name))
        if target.next is not None:
            machine.add(target.next)
            machine.moves.append(Move(target.to, target.next, rule.name, target.after_s))
    return found


def state_warnings(rules: Sequence[CompiledRule]) -> list[ScenarioProblem]:
    """A warning for each `when_state` no move reaches, and each state reached that no rule leaves."""
    found: list[ScenarioProblem] = []
    for machine in machines(rules).values():
        unreachable = set(machine.unreachable())
        for rule in rules:
            if rule.scenario == machine.name and rule.when_state in unreachable:
                found.append(
                    ScenarioProblem(
                        rule.source,
                        rule.line,
                        None,
                        "",
                        f"rule {rule.name!r} matches in state {rule.when_state!r} of scenario {machine.name!r}, "
                        f"which no rule's set_state reaches from {STARTED!r}: it answers only after "
                        "PUT /_emulator/states",
                    )
                )
        for state in machine.dead_ends():
            mine = [r for r in rules if r.scenario == machine.name]
            into = next((r for r in mine if _moves_into(r, state)), mine[0])
            found.append(
                ScenarioProblem(
                    into.source,
                    into.line,
                    None,
                    "",
                    f"no rule leaves state {state!r} of scenario {machine.name!r}: once there, a session stays "
                    "until PUT or DELETE /_emulator/states or sessions/reset",
                )
            )
    return found


def _moves_into(rule: CompiledRule, state: str) -> bool:
    target = rule.rule.moves_to
    return target is not None and state in (target.to, target.next)
