"""Ids are a promise: the same seed, session and position give the same id in every version.
The two ids made on every request are spelled out for speed; they must stay what digest() gives."""

from __future__ import annotations

from hashlib import blake2b

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenmux_emulator.foundation.ids import completion_id, digest, request_id

PART = st.one_of(
    st.integers(),
    st.text(),
    st.floats(allow_nan=False),
    st.none(),
    st.booleans(),
    st.binary(max_size=8),
    st.tuples(st.integers(), st.text(max_size=4)),
)


@pytest.mark.parametrize("seed", [0, 7, -3, 2**40])
@pytest.mark.parametrize("number", [1, 2, 99_999])
def test_request_and_completion_ids_are_the_digest_of_their_parts(seed: int, number: int) -> None:
    assert request_id(seed, number) == digest(seed, "request", number)
    assert completion_id(seed, "sess-a", number) == digest(seed, "completion", "sess-a", number)
    assert completion_id(seed, "ünïcode ✓", number) == digest(seed, "completion", "ünïcode ✓", number)


def test_ids_keep_their_values_across_versions() -> None:
    # recorded once: a change here changes every id users may have pinned in their own tests
    assert request_id(0, 1) == "01d5f144ccee316382f07873ea35b49f"
    assert completion_id(0, "s", 1) == "a6b6a98dd06477f4e0542ede63b36016"


def joined(*parts: object, size: int = 16) -> str:
    """What `digest` promises, written the plain way: each part's `str`, then a unit separator."""
    return blake2b(("\x1f".join(map(str, parts)) + "\x1f").encode(), digest_size=size).hexdigest()


@given(st.lists(PART, max_size=12), st.sampled_from([8, 16, 32]))
def test_digest_hashes_each_parts_text_and_a_separator_whatever_the_parts(parts: list[object], size: int) -> None:
    # digest fills a format made once per number of parts (up to eight; more are spelled on the
    # spot): any part, a `%` in a text or a tuple among them, hashes as its `str` does
    assert digest(*parts, size=size) == joined(*parts, size=size)


def test_digest_of_no_parts_is_the_separator_alone() -> None:
    assert digest() == joined() == blake2b(b"\x1f", digest_size=16).hexdigest()
    assert digest("100%", "%s", "%d") == joined("100%", "%s", "%d")
