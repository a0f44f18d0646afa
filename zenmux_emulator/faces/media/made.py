"""Media made in a thread instead of on the event loop, kept until the face's `render` takes it.

A face's `render` is synchronous and runs on the loop; drawing ten 3840x2160 pictures or encoding
minutes of mp3 or opus there held every other client for seconds. So the media endpoint, once the
reply is drafted (after matching: a rule's `content` may change what speech reads), asks the face
what media its render will need (`prepare`) and makes it in a thread; `render` then finds each piece
here, keyed by everything that decides its bytes. A piece not found (made elsewhere: the control
API's explain, or pushed out by other requests' media in between) is made where it is asked for, as
before; the bytes are the same either way."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

MAX_BYTES = 48 << 20
"""What one face's made media may hold in all: more than its largest request needs (ten 3840x2160
jpegs with three partial images each, about 10 MB; 16 minutes of flac, about 9 MB)."""


class Made(Generic[V]):
    """Values by key, made at most once while kept, bounded in bytes (the oldest go first).
    Filled from a thread and read on the loop: the lock guards the table, never the making."""

    def __init__(self, size: Callable[[V], int], max_bytes: int = MAX_BYTES) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.held = 0
        self.kept: OrderedDict[Hashable, V] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept for `key`, else `make()`'s, kept."""
        with self.lock:
            value = self.kept.get(key)
            if value is not None:
                self.kept.move_to_end(key)
                return value
        value = make()
        self.keep(key, value)
        return value

    def keep(self, key: Hashable, value: V) -> None:
        size = self.size(value)
        if size > self.max_bytes:
            return
        with self.lock:
            old = self.kept.pop(key, None)
            if old is not None:
                self.held -= self.size(old)
            self.kept[key] = value
            self.held += size
            while self.held > self.max_bytes:
                _, gone = self.kept.popitem(last=False)
                self.held -= self.size(gone)
