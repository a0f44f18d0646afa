"""`faces.media.made`: media made once while kept, the oldest going first past the byte bound, and
a value larger than the bound made but never kept."""

from __future__ import annotations

from zenmux_emulator.faces.media.made import Made


def test_a_kept_value_is_not_made_again_and_the_oldest_go_first() -> None:
    made: Made[bytes] = Made(len, max_bytes=10)
    calls: list[str] = []

    def make(key: str, size: int) -> bytes:
        calls.append(key)
        return b"x" * size

    assert made.get("a", lambda: make("a", 4)) == b"xxxx"
    assert made.get("a", lambda: make("a", 4)) == b"xxxx"
    made.get("b", lambda: make("b", 4))
    made.get("a", lambda: make("a", 4))  # used: now the newest
    made.get("c", lambda: make("c", 4))  # past 10 bytes: b, the oldest, goes
    assert list(made.kept) == ["a", "c"] and made.held == 8
    assert calls == ["a", "b", "c"]


def test_a_value_past_the_bound_is_made_each_time_and_never_kept() -> None:
    made: Made[bytes] = Made(len, max_bytes=10)
    assert made.get("big", lambda: b"y" * 11) == b"y" * 11
    assert not made.kept and made.held == 0
