"""The images a `response_format: url` answer links to, served under the emulator's own origin
(`GET /api/v1/images/content/{name}`) for `LIFETIME_S` on the emulator's clock, as OpenAI keeps its
URLs for 60 minutes. Held in this process's memory, at most `MAX_BYTES` in all: the oldest go first."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from zenmux_emulator.foundation.clock import Clock

LIFETIME_S = 3600
MAX_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class Kept:
    content_type: str
    data: bytes
    expires: float


class ImageStore:
    """Images by name, bounded in bytes, each valid until its time on the clock."""

    def __init__(self, clock: Clock, max_bytes: int = MAX_BYTES) -> None:
        self.clock = clock
        self.max_bytes = max_bytes
        self.held = 0
        self.images: OrderedDict[str, Kept] = OrderedDict()

    def keep(self, name: str, content_type: str, data: bytes) -> None:
        old = self.images.pop(name, None)
        if old is not None:
            self.held -= len(old.data)
        self.images[name] = Kept(content_type, data, self.clock.now() + LIFETIME_S)
        self.held += len(data)
        while self.held > self.max_bytes and len(self.images) > 1:
            _, gone = self.images.popitem(last=False)
            self.held -= len(gone.data)

    def get(self, name: str) -> Kept | None:
        kept = self.images.get(name)
        if kept is None or self.clock.now() >= kept.expires:
            return None
        return kept
