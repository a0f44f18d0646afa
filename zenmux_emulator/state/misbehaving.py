"""The faults sessions asked for through the control API (`POST /_emulator/misbehave`).

Held by the process that took the call: under `--workers` or `--state` another process does not
see it (the request header and the rules' `misbehave:` work everywhere)."""

from __future__ import annotations

from zenmux_emulator.foundation.misbehaviours import Ask


class Misbehaving:
    """Each session's standing fault ask, by session name; a bounded number of sessions."""

    __slots__ = ("_asks", "capacity")

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._asks: dict[str, Ask] = {}

    def get(self, session: str) -> Ask | None:
        return self._asks.get(session) if self._asks else None

    def set(self, session: str, ask: Ask | None) -> None:
        """Ask for a fault on every request of the session (None: stop asking)."""
        self._asks.pop(session, None)
        if ask is not None:
            if len(self._asks) >= self.capacity:
                self._asks.pop(next(iter(self._asks)))
            self._asks[session] = ask

    def as_dict(self) -> dict[str, dict[str, object]]:
        return {
            name: {"fault": ask.fault, "variant": ask.variant, "rate": ask.rate, "times": ask.times}
            for name, ask in self._asks.items()
        }
