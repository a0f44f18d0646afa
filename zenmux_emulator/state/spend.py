"""One served completion's spend, as the Platform API's ledger counts it (`core/journal/ledger.py`):
worked out once where it is served, then added to the ledger in process, or written to the shared
store's (`--state`) with the request's other changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

BUCKETS_KEPT = 100_000
"""Minute buckets kept (a bucket is a minute of one model on one key): about 20 MB at most."""


@lru_cache(maxsize=64)
def minute_stamp(minute: int) -> str:
    """`YYYYMMDDHHmm` in UTC of a minute (Unix seconds // 60): written once per minute, since only
    a new bucket and the shared store read it."""
    return datetime.fromtimestamp(minute * 60, tz=UTC).strftime("%Y%m%d%H%M")


@dataclass(slots=True)
class Spend:
    """What one completion adds to its minute's bucket (a minute of one model on one key), and to
    the account's PAYG total or its subscription's spend times. Made on every completion and never
    changed: slotted and not frozen, as the endpoint's step values are (a frozen dataclass sets
    each of its fields through `object.__setattr__`)."""

    minute: int
    """The minute, as a number (Unix seconds // 60): the bucket's place in time."""
    model: str
    key_id: str
    subscription: bool
    prompt_tokens: int
    completion_tokens: int
    prompt_cost: float
    completion_cost: float
    other_cost: float
    charged: float
    """USD the completion cost, whichever way it was priced."""
    moment: float
    """When it was served (the emulator's clock)."""
    name: str
    """The completion's generation id (a subscription's spend times are kept by it)."""
    counted: float = 0.0
    """Media units it made (`perCount`: images)."""
    seconds: float = 0.0
    """Seconds of media it metered (`perSecond`: audio)."""

    @property
    def slot(self) -> tuple[int, str, str]:
        return self.minute, self.model, self.key_id

    @property
    def stamp(self) -> str:
        """The minute as `YYYYMMDDHHmm` in UTC."""
        return minute_stamp(self.minute)


@dataclass(frozen=True, slots=True)
class StoredBucket:
    """A minute bucket as the shared store holds it."""

    minute: int
    stamp: str
    model: str
    key_id: str
    subscription: bool
    requests: int
    prompt_tokens: int
    completion_tokens: int
    prompt_cost: float
    completion_cost: float
    other_cost: float
    counted: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class StoredLedger:
    """The whole ledger as the shared store holds it: its buckets, oldest minute first, the PAYG
    total and the subscription's (when, USD) of the last seven days."""

    buckets: list[StoredBucket]
    metered_spent: float
    subscription_spend: list[tuple[float, float]]
