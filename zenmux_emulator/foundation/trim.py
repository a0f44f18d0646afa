"""Bytes kept long, right-sized.

orjson (3.12 and later) writes its output into a buffer of at least 4 KiB, growing by powers of
two, and hands that buffer back as the `bytes` without shrinking it: a 300-byte body made by
`orjson.dumps` holds 4 KiB for as long as it is kept, a 1.5 kB one 16 KiB. What is made once and
sent is gone at once; what is kept (a journal entry's response, a text's deltas kept for the
next stream) is copied to its size first."""

from __future__ import annotations


def trimmed(data: bytes) -> bytes:
    """A copy of `data` holding its own length and no more (a memoryview's copy: `bytes(data)`
    and a whole slice hand back the same object)."""
    return bytes(memoryview(data))
