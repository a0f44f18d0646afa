"""The account's spend and usage, for the Platform API: every completion's tokens and cost added
up by minute, model and API key as it is served (no bodies, no secrets: a key appears as its id).

Unlike the generation records, nothing is forgotten one completion at a time: a bucket holds a
minute of one model on one key, and the oldest buckets go only past `size` of them."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.foundation.ids import digest

BUCKETS_KEPT = 100_000
"""Minute buckets kept (a bucket is a minute of one model on one key): about 20 MB at most."""
SUBSCRIPTION_PREFIX = "sk-ss-v1-"
"""Subscription keys' usage spends Flows, not PAYG credits (ZenMux's bill type `subscription`)."""


@lru_cache(maxsize=1024)
def key_id(key: str) -> str:
    """An API key's resource id as the Platform API shows it: never the secret itself (worked out
    once per key: a server sees a handful of keys)."""
    return "key_" + digest("api-key", key, size=8)


def minute_of(moment: float) -> str:
    """`YYYYMMDDHHmm` in UTC of a Unix time."""
    return datetime.fromtimestamp(moment, tz=UTC).strftime("%Y%m%d%H%M")


@dataclass(slots=True)
class Bucket:
    """One minute of one model on one key."""

    minute: str
    """`YYYYMMDDHHmm` in UTC."""
    model: str
    key_id: str
    subscription: bool
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_cost: float = 0.0
    completion_cost: float = 0.0
    other_cost: float = 0.0

    @property
    def cost(self) -> float:
        return self.prompt_cost + self.completion_cost + self.other_cost


class Ledger:
    """Spend and usage per minute, model and key; the PAYG total and the subscription's spend times."""

    __slots__ = ("_buckets", "metered_spent", "size", "subscription_spend")

    def __init__(self, size: int = BUCKETS_KEPT) -> None:
        self.size = size
        self._buckets: dict[tuple[int, str, str], Bucket] = {}
        self.metered_spent = 0.0
        """USD PAYG keys spent since start (what the balance falls by)."""
        self.subscription_spend: deque[tuple[float, float]] = deque()
        """(when, USD) of each subscription key's completion, for the quota windows (last 7 days kept)."""

    def add(self, generation: Generation, key: str) -> None:
        """Count a served completion on the key that asked for it."""
        moment = generation.created
        subscription = key.startswith(SUBSCRIPTION_PREFIX)
        name = key_id(key)
        slot = (int(moment // 60), generation.model, name)  # the minute, as a number: its text only for a new bucket
        found = self._buckets.get(slot)
        if found is None:
            found = self._buckets[slot] = Bucket(minute_of(moment), generation.model, name, subscription)
            if len(self._buckets) > self.size:
                del self._buckets[next(iter(self._buckets))]
        prompt, completion = generation.tokens[:2]
        found.requests += 1
        found.prompt_tokens += prompt
        found.completion_tokens += completion
        rates, cost = generation.rates_for(prompt), generation.cost  # the usage read once
        if cost is None and rates is not None:
            charged = prompt * rates[0] + completion * rates[1]  # what `Generation.charged` says, worked out once
            found.prompt_cost += prompt * rates[0]
            found.completion_cost += completion * rates[1]
        else:
            charged = cost or 0.0
            found.other_cost += charged
        if subscription:
            self.subscription_spend.append((moment, charged))
            week_ago = moment - 7 * 86_400
            while self.subscription_spend and self.subscription_spend[0][0] < week_ago:
                self.subscription_spend.popleft()
        else:
            self.metered_spent += charged

    def buckets(self, prefix: str) -> Iterator[Bucket]:
        """The buckets whose minute starts with `prefix` (`YYYYMM`, `YYYYMMDD` or `YYYYMMDDHH`)."""
        return (bucket for bucket in self._buckets.values() if bucket.minute.startswith(prefix))

    def subscription_since(self, moment: float) -> tuple[float, float | None]:
        """USD subscription keys spent since `moment`, and when the first of it was (None: nothing)."""
        spent = [(when, cost) for when, cost in self.subscription_spend if when >= moment]
        return sum(cost for _, cost in spent), spent[0][0] if spent else None
