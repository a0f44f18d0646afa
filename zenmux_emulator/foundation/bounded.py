"""A store bounded by count and by bytes: entries kept oldest first, dropped oldest first once past
either bound. The journal is bounded so; the stores a face keeps for later reads (ObjectiveAI's
completions, Responses' stored responses) are too, so a few huge requests cannot hold memory."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """At most `count` entries and `size` bytes of them (each entry's bytes as the caller counts
    them); an entry larger than `size` alone is not kept."""

    def __init__(self, count: int, size: int) -> None:
        self.count = count
        self.size = size
        self.bytes = 0
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def put(self, key: K, value: V, size: int) -> list[K]:
        """Keep `value` as the newest entry; the keys dropped to make room (maybe `key` itself)."""
        self.pop(key)
        self._entries[key] = (value, size)
        self.bytes += size
        dropped = []
        while self._entries and (len(self._entries) > self.count or self.bytes > self.size):
            gone, (_, gone_size) = self._entries.popitem(last=False)
            self.bytes -= gone_size
            dropped.append(gone)
        return dropped

    def get(self, key: K) -> V | None:
        found = self._entries.get(key)
        return found[0] if found is not None else None

    def pop(self, key: K) -> V | None:
        found = self._entries.pop(key, None)
        if found is None:
            return None
        self.bytes -= found[1]
        return found[0]

    def newest_first(self) -> Iterator[tuple[K, V]]:
        return ((key, value) for key, (value, _) in reversed(self._entries.items()))

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
