"""Scenario states (`scenario`, `when_state`, `set_state`): where each scenario stands, per owner.

An owner is a session, or `SERVER_WIDE` for the scenarios a file's `settings.server_wide_scenarios`
names. A state is a `Standing`: its name, and a timed move pending (`then` once the emulator's
clock reaches `due`), resolved whenever it is read, so no timer runs. Every scenario starts in
`started`; an owner with nothing stored stands there in every scenario.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import orjson

STARTED = "started"
SERVER_WIDE = "*"
"""The owner of the server-wide scenarios' states (no session is named so by the emulator)."""
OWNERS_KEPT = 10_000
"""Owners kept in process, the least recently moved dropped past it (as sessions are)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a scenario stands: `state`, and, when a timed move is pending, `then` at `due`
    (unix seconds on the emulator's clock)."""

    state: str
    then: str | None = None
    due: float | None = None

    def at(self, now: float) -> Standing:
        """As it stands at `now`: a pending move that fell due has been made."""
        if self.then is not None and self.due is not None and now >= self.due:
            return Standing(self.then)
        return self

    def encode(self) -> str:
        """`[state]` or `[state, then, due]`, the form Redis's script reads."""
        if self.then is None or self.due is None:
            return orjson.dumps([self.state]).decode()
        return orjson.dumps([self.state, self.then, self.due]).decode()

    @classmethod
    def decode(cls, text: str | bytes) -> Standing:
        items = orjson.loads(text)
        if len(items) >= 3:
            return cls(str(items[0]), str(items[1]), float(items[2]))
        return cls(str(items[0]))

    def as_dict(self) -> dict[str, object]:
        pending = None if self.then is None else {"to": self.then, "due": self.due}
        return {"state": self.state, "pending": pending}


START = Standing(STARTED)


class StateBook:
    """The standings in this process, by owner then scenario."""

    def __init__(self, capacity: int = OWNERS_KEPT) -> None:
        self.capacity = capacity
        self._by: OrderedDict[str, dict[str, Standing]] = OrderedDict()

    def of(self, owner: str) -> dict[str, Standing]:
        """The owner's stored standings (a copy)."""
        return dict(self._by.get(owner, {}))

    def move(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        """Move to `to` if the scenario stands at `seen` now: None; else where it stands."""
        current = self._by.get(owner, {}).get(scenario, START).at(now).state
        if current != seen:
            return current
        self.put(owner, scenario, to)
        return None

    def put(self, owner: str, scenario: str, standing: Standing | None) -> None:
        """Set one scenario's standing (None: back to `started`)."""
        if standing is None:
            kept = self._by.get(owner)
            if kept is not None:
                kept.pop(scenario, None)
            return
        self._by.setdefault(owner, {})[scenario] = standing
        self._by.move_to_end(owner)
        if len(self._by) > self.capacity:
            self._by.popitem(last=False)

    def reset(self, owner: str | None, scenario: str | None = None) -> int:
        """Put scenarios back to `started`: one scenario or all, of one owner or every one; how many moved."""
        owners = list(self._by) if owner is None else [owner]
        count = 0
        for name in owners:
            kept = self._by.get(name)
            if kept is None:
                continue
            names = list(kept) if scenario is None else [scenario]
            for item in names:
                count += kept.pop(item, None) is not None
            if not kept:
                del self._by[name]
        return count

    def everything(self) -> dict[str, dict[str, Standing]]:
        return {owner: dict(kept) for owner, kept in self._by.items()}
