"""foundation/trim.py: bytes kept long hold their own length, not the buffer orjson wrote them in."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import orjson

from zenmux_emulator.foundation.trim import trimmed

BODY = {"id": "gen-1", "object": "chat.completion", "choices": [{"message": {"content": "word " * 60}}]}


def held(make: Callable[[], bytes]) -> tuple[bytes, int]:
    """What `make` returns, and the bytes still allocated once it has (what keeping it costs)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = make()
        return kept, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_a_trimmed_copy_holds_its_length_and_equals_the_original() -> None:
    kept, size = held(lambda: trimmed(orjson.dumps(BODY)))
    assert kept == orjson.dumps(BODY)
    assert size <= len(kept) + 64
