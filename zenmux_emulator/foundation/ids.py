"""Deterministic identifiers: the same seed, session and position always give the same id."""

from __future__ import annotations

from hashlib import blake2b

DEFAULT_SEED = 20251
"""The seed of every id and seeded value unless `--seed` says otherwise."""


def _spelled(count: int) -> str:
    """The format of `count` parts' text: each part as `str` gives it, then `\x1f` (just `\x1f` for none)."""
    return "%s\x1f" * count if count else "\x1f"


_SPELLED = tuple(_spelled(count) for count in range(9))
"""The formats of up to eight parts, made once: every request makes two ids and a seed or more, and
`%` fills a format made beforehand in one call, where joining the parts' `str` took as long as the hash."""


def digest(*parts: object, size: int = 16) -> str:
    """Lower-case hex of a keyed hash over the parts (stable across runs and machines): the hash of
    each part's `str` followed by `\x1f`."""
    count = len(parts)
    text = (_SPELLED[count] if count < len(_SPELLED) else _spelled(count)) % parts
    return blake2b(text.encode(), digest_size=size).hexdigest()


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
