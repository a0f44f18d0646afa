"""Ids are a promise: the same seed, session and position give the same id in every version.
The two ids made on every request are spelled out for speed; they must stay what digest() gives."""

from __future__ import annotations

import pytest

from zenmux_emulator.foundation.ids import completion_id, digest, request_id


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
