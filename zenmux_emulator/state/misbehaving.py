"""The faults sessions asked for through the control API (`POST /_emulator/misbehave`).

Kept here by the state in process (`server/state_local.py`); under `--state` the shared store
keeps them (`state/redis_store.py`), so a fault set through any worker or instance is applied by
every one. `encode_ask`/`decode_ask` are how the store writes one."""

from __future__ import annotations

import orjson

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

    def asks(self) -> dict[str, Ask]:
        return dict(self._asks)


def ask_dict(ask: Ask) -> dict[str, object]:
    """An ask as the control API shows it (and the shared store keeps it, as JSON)."""
    return {"fault": ask.fault, "variant": ask.variant, "rate": ask.rate, "times": ask.times}


def encode_ask(ask: Ask) -> bytes:
    return orjson.dumps(ask_dict(ask))


def decode_ask(blob: bytes | str) -> Ask:
    data = orjson.loads(blob)
    return Ask(str(data["fault"]), data.get("variant"), float(data.get("rate", 1.0)), data.get("times"))
