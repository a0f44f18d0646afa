"""Deterministic identifiers: the same seed, session and position always give the same id."""

from __future__ import annotations

from hashlib import blake2b

DEFAULT_SEED = 20251
"""The seed of every id and seeded value unless `--seed` says otherwise."""


def digest(*parts: object, size: int = 16) -> str:
    """Lower-case hex of a keyed hash over the parts (stable across runs and machines)."""
    return blake2b(("\x1f".join(map(str, parts)) + "\x1f").encode(), digest_size=size).hexdigest()


def completion_id(seed: int, session: str, number: int) -> str:
    """A generation id in ZenMux's documented form: 32 lower-case hex characters, no prefix."""
    return digest(seed, "completion", session, number)


def request_id(seed: int, number: int) -> str:
    """The `X-ZenMux-RequestId` of the n-th request the server received."""
    return digest(seed, "request", number)


def seed_int(*parts: object) -> int:
    """A 64-bit integer seed for a random generator, from the parts."""
    return int(digest(*parts, size=8), 16)


def seed_int_then(last: bytes, *parts: object) -> int:
    """`seed_int(*parts, value)`, given `last`, the value's text encoded already (`str(value).encode()`,
    made once for a large value that many seeds end with)."""
    hasher = blake2b(digest_size=8)
    for part in parts:
        hasher.update(str(part).encode())
        hasher.update(b"\x1f")
    hasher.update(last)
    hasher.update(b"\x1f")
    return int(hasher.hexdigest(), 16)
