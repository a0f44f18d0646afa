"""What each completion served, by the ids its client got, for ZenMux's generation lookup.

A bounded store beside the journal: one small record per completion (no bodies), found in O(1)
by the generation id (`x-generation-id`) or the face's own id (`msg_…`, `resp_…`, …); the oldest
is forgotten once `size` are kept."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.foundation.metered import Metered, metered
from zenmux_emulator.scenario.schema import Pricing
from zenmux_emulator.write.sse import StreamOutcome

GENERATIONS_KEPT = 2_000
"""Completions whose generation can be looked up (the oldest are forgotten first): about 0.75 KB
each, so at most about 1.5 MB."""


Rates = tuple[float, float]


@dataclass(slots=True)
class Generation:
    """One completion as the lookup reports it: what was at hand when it was served (the reply's
    usage object, the catalogue's prices), worked into ZenMux's shape only when looked up. Made on
    every completion, it holds references and counts nothing until read. Never changed once made;
    slotted and not frozen, as the endpoint's step values are (core/endpoint.py says why)."""

    api: str
    """ZenMux's name of the face's API: `chat.completions`, `messages`, `responses`, …"""
    generation_id: str
    model: str
    """The model that served (after routing and fallback)."""
    created: float
    """When the request arrived, on the emulator's clock (Unix seconds)."""
    latency_s: float
    """Time to the first token: the provider's latency and the first chunk's scripted wait."""
    stream: StreamOutcome | None
    """A stream's progress, whose later scripted waits are the generation time as far as it got
    (None for a JSON reply: 0)."""
    usage: Mapping[str, Any]
    """The usage object the client got (chat's keys; a face's `cost` in USD among them)."""
    pricing: Pricing | None
    """The catalogue's prices of the model; None for a model the catalogue does not list."""
    finish_reason: str | None
    retries: int
    """Provider attempts before the one that served."""
    reply_id: str = ""
    """The id in the reply's body when it is not the generation id (`msg_…`, `resp_…`): the
    lookup finds the completion by it too."""

    @property
    def ids(self) -> tuple[str, ...]:
        """Every id the client got, by which the lookup finds this completion."""
        return (self.generation_id, self.reply_id) if self.reply_id else (self.generation_id,)

    @property
    def streamed(self) -> bool:
        return self.stream is not None

    @property
    def tokens(self) -> tuple[int, int, int, int, int]:
        """Prompt, completion, total, reasoning and cached tokens, as the reply counted them."""
        usage = self.usage
        completion = usage.get("completion_tokens_details") or {}
        cached = usage.get("prompt_tokens_details") or {}
        return (
            usage.get("prompt_tokens") or 0,
            usage.get("completion_tokens") or 0,
            usage.get("total_tokens") or 0,
            completion.get("reasoning_tokens") or 0,
            cached.get("cached_tokens") or 0,
        )

    @property
    def rates(self) -> Rates | None:
        """USD per prompt token and per completion token at the catalogue's prices for a prompt of
        this size; None for a model the catalogue does not list."""
        return self.rates_for(self.tokens[0])

    def rates_for(self, prompt: int) -> Rates | None:
        """`rates` for a caller that has the prompt's tokens at hand."""
        if self.pricing is None:
            return None
        prices = self.pricing.for_prompt(prompt)
        return prices.prompt / 1_000_000, prices.completion / 1_000_000

    @property
    def cost(self) -> float | None:
        """The face's own figure in USD (ObjectiveAI's), else None: the tokens at the prices."""
        cost: float | None = self.usage.get("cost")
        return cost

    @property
    def generation_s(self) -> float:
        """First token to the end: the stream's later scripted waits, 0 for a JSON reply."""
        return self.stream.waited if self.stream is not None else 0.0

    @property
    def fees(self) -> list[tuple[Metered, float]]:
        """What the reply metered besides tokens (images, seconds of audio), each with its unit
        price at the catalogue's `pricing.units` (none for a model the catalogue does not list)."""
        found = metered(self.usage)
        if not found or self.pricing is None:
            return []
        return self.pricing.fees(found)

    @property
    def metered_cost(self) -> float:
        """USD of what the reply metered besides tokens."""
        return sum(used["amount"] * rate for used, rate in self.fees)

    @property
    def charged(self) -> float | None:
        """USD the completion costs: the face's own figure, else its tokens at the prices and its
        metered units at theirs."""
        if self.cost is not None:
            return self.cost
        rates = self.rates
        if rates is None:
            return None
        return self.tokens[0] * rates[0] + self.tokens[1] * rates[1] + self.metered_cost

    def blob(self) -> bytes:
        """The record as JSON, for the shared store (`--state`)."""
        pricing = self.pricing.model_dump(mode="json") if self.pricing is not None else None
        return orjson.dumps(
            (
                self.api,
                self.generation_id,
                self.model,
                self.created,
                self.latency_s,
                self.generation_s,
                self.streamed,
                self.usage,
                pricing,
                self.finish_reason,
                self.retries,
                self.reply_id,
            )
        )

    @classmethod
    def of_blob(cls, blob: bytes) -> Generation:
        """A record `blob()` wrote."""
        (
            api,
            generation_id,
            model,
            created,
            latency_s,
            generation_s,
            streamed,
            usage,
            pricing,
            finish_reason,
            retries,
            reply_id,
        ) = orjson.loads(blob)
        return cls(
            api,
            generation_id,
            model,
            created,
            latency_s,
            StreamOutcome(waited=generation_s) if streamed else None,
            usage,
            Pricing.model_validate(pricing) if pricing is not None else None,
            finish_reason,
            retries,
            reply_id,
        )


class Generations:
    """The last `size` completions by every id their clients got."""

    __slots__ = ("_by_id", "_order", "size")

    def __init__(self, size: int = GENERATIONS_KEPT) -> None:
        self.size = size
        self._by_id: dict[str, Generation] = {}
        self._order: deque[Generation] = deque()

    def add(self, generation: Generation) -> None:
        """Keep a completion under each of its ids (a reused id now finds this one); forget the
        oldest past `size`."""
        if self.size <= 0:
            return
        by_id = self._by_id
        by_id[generation.generation_id] = generation
        if generation.reply_id:
            by_id[generation.reply_id] = generation
        self._order.append(generation)
        while len(self._order) > self.size:
            old = self._order.popleft()
            for name in old.ids:
                if by_id.get(name) is old:
                    del by_id[name]

    def get(self, name: str) -> Generation | None:
        return self._by_id.get(name)

    def __len__(self) -> int:
        return len(self._order)
