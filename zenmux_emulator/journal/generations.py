"""What each completion served, by the ids its client got, for ZenMux's generation lookup.

A bounded store beside the journal: one small record per completion (no bodies), found in O(1)
by the generation id (`x-generation-id`) or the face's own id (`msg_…`, `resp_…`, …); the oldest
is forgotten once `size` are kept."""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import orjson

from zenmux_emulator.write.sse import StreamOutcome

GENERATIONS_KEPT = 2_000
"""Completions whose generation can be looked up (the oldest are forgotten first): about 0.75 KB
each, so at most about 1.5 MB."""


class Generation(NamedTuple):
    """One completion as the lookup reports it: what was at hand when it was served, worked into
    ZenMux's shape only when looked up (a tuple: cheap to make on every completion)."""

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
    tokens: tuple[int, int, int, int, int]
    """Prompt, completion, total, reasoning and cached tokens, as the reply counted them."""
    streamed: bool
    finish_reason: str | None
    rates: tuple[float, float] | None
    """USD per prompt token and per completion token at the catalogue's prices for a prompt of this
    size; None for a model the catalogue does not list."""
    cost: float | None
    """The face's own figure in USD (ObjectiveAI's), else None: the tokens at the prices."""
    retries: int
    """Provider attempts before the one that served."""

    @property
    def generation_s(self) -> float:
        """First token to the end: the stream's later scripted waits, 0 for a JSON reply."""
        return self.stream.waited if self.stream is not None else 0.0

    @property
    def charged(self) -> float | None:
        """USD the completion costs: the face's own figure, else its tokens at the prices."""
        if self.cost is not None:
            return self.cost
        rates = self.rates
        return None if rates is None else self.tokens[0] * rates[0] + self.tokens[1] * rates[1]

    def blob(self) -> bytes:
        """The record as JSON, for the shared store (`--state`)."""
        return orjson.dumps((*self[:5], self.generation_s, *self[6:]))

    @classmethod
    def of_blob(cls, blob: bytes) -> Generation:
        """A record `blob()` wrote."""
        (api, generation_id, model, created, latency_s, generation_s, tokens, streamed, finish_reason, rates, cost,
         retries) = orjson.loads(blob)
        return cls(api, generation_id, model, created, latency_s, StreamOutcome(waited=generation_s) if streamed else None,
                   tuple(tokens), streamed, finish_reason, tuple(rates) if rates is not None else None, cost, retries)


class Generations:
    """The last `size` completions by every id their clients got."""

    __slots__ = ("_by_id", "_order", "size")

    def __init__(self, size: int = GENERATIONS_KEPT) -> None:
        self.size = size
        self._by_id: dict[str, Generation] = {}
        self._order: deque[tuple[Generation, tuple[str, ...]]] = deque()

    def add(self, generation: Generation, *ids: str) -> None:
        """Keep a completion under each of its ids (a reused id now finds this one); forget the
        oldest past `size`."""
        if self.size <= 0:
            return
        for name in ids:
            self._by_id[name] = generation
        self._order.append((generation, ids))
        while len(self._order) > self.size:
            old, names = self._order.popleft()
            for name in names:
                if self._by_id.get(name) is old:
                    del self._by_id[name]

    def get(self, name: str) -> Generation | None:
        return self._by_id.get(name)

    def __len__(self) -> int:
        return len(self._order)
