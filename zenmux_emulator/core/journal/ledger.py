"""The account's spend and usage, for the Platform API: every completion's tokens and cost added
up by minute, model and API key as it is served (no bodies, no secrets: a key appears as its id).

Unlike the generation records, nothing is forgotten one completion at a time: a bucket holds a
minute of one model on one key, and the oldest buckets go only past `size` of them."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.foundation.metered import METERED, amounts
from zenmux_emulator.state.spend import BUCKETS_KEPT, Spend, StoredLedger

WEEK_S = 7 * 86_400
"""How long a subscription's spend times are kept (its longest quota window)."""
SUBSCRIPTION_PREFIX = "sk-ss-v1-"
"""Subscription keys' usage spends Flows, not PAYG credits (ZenMux's bill type `subscription`)."""


@lru_cache(maxsize=1024)
def key_id(key: str) -> str:
    """An API key's resource id as the Platform API shows it: never the secret itself (worked out
    once per key: a server sees a handful of keys)."""
    return "key_" + digest("api-key", key, size=8)


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
    counted: float = 0.0
    """Media units made (`perCount`: images, videos)."""
    seconds: float = 0.0
    """Seconds of media metered (`perSecond`: speech out, audio in, video)."""

    @property
    def cost(self) -> float:
        return self.prompt_cost + self.completion_cost + self.other_cost


def spend_of(generation: Generation, key: str) -> Spend:
    """What a served completion adds to the ledger, on the key that asked for it."""
    moment = generation.created
    prompt, completion = generation.tokens[:2]
    rates, cost = generation.rates_for(prompt), generation.cost  # the usage read once
    metered = METERED in generation.usage  # images, seconds of audio: only a media reply meters any
    prompt_cost = completion_cost = other_cost = 0.0
    if cost is None and rates is not None:
        prompt_cost, completion_cost = prompt * rates[0], completion * rates[1]
        if metered:
            other_cost = generation.metered_cost  # ZenMux's other cost
        charged = prompt_cost + completion_cost + other_cost  # what `Generation.charged` says, worked out once
    else:
        charged = other_cost = cost or 0.0
    counted, seconds = amounts(generation.usage) if metered else (0.0, 0.0)
    return Spend(
        int(moment // 60),
        generation.model,
        key_id(key),
        key.startswith(SUBSCRIPTION_PREFIX),
        prompt,
        completion,
        prompt_cost,
        completion_cost,
        other_cost,
        charged,
        moment,
        generation.generation_id,
        counted,
        seconds,
    )


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
        self.apply(spend_of(generation, key))

    def apply(self, spend: Spend) -> None:
        """Count a completion's spend (worked out by `spend_of`)."""
        slot = spend.slot
        found = self._buckets.get(slot)
        if found is None:
            found = self._buckets[slot] = Bucket(spend.stamp, spend.model, spend.key_id, spend.subscription)
            if len(self._buckets) > self.size:
                del self._buckets[next(iter(self._buckets))]
        found.requests += 1
        found.prompt_tokens += spend.prompt_tokens
        found.completion_tokens += spend.completion_tokens
        found.prompt_cost += spend.prompt_cost
        found.completion_cost += spend.completion_cost
        found.other_cost += spend.other_cost
        found.counted += spend.counted
        found.seconds += spend.seconds
        if spend.subscription:
            self.subscription_spend.append((spend.moment, spend.charged))
            week_ago = spend.moment - WEEK_S
            while self.subscription_spend and self.subscription_spend[0][0] < week_ago:
                self.subscription_spend.popleft()
        else:
            self.metered_spent += spend.charged

    @classmethod
    def of(cls, stored: StoredLedger) -> Ledger:
        """The ledger a shared store holds, to read as this process's is read."""
        ledger = cls()
        for b in stored.buckets:
            ledger._buckets[(b.minute, b.model, b.key_id)] = Bucket(
                b.stamp,
                b.model,
                b.key_id,
                b.subscription,
                b.requests,
                b.prompt_tokens,
                b.completion_tokens,
                b.prompt_cost,
                b.completion_cost,
                b.other_cost,
                b.counted,
                b.seconds,
            )
        ledger.metered_spent = stored.metered_spent
        ledger.subscription_spend.extend(stored.subscription_spend)
        return ledger

    def buckets(self, prefix: str) -> Iterator[Bucket]:
        """The buckets whose minute starts with `prefix` (`YYYYMM`, `YYYYMMDD` or `YYYYMMDDHH`)."""
        return (bucket for bucket in self._buckets.values() if bucket.minute.startswith(prefix))

    def subscription_since(self, moment: float) -> tuple[float, float | None]:
        """USD subscription keys spent since `moment`, and when the first of it was (None: nothing)."""
        spent = [(when, cost) for when, cost in self.subscription_spend if when >= moment]
        return sum(cost for _, cost in spent), spent[0][0] if spent else None
