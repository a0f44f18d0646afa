"""write/plan.py: a reply's events, iterated as the face makes them or marked for the pacing."""

from __future__ import annotations

from collections.abc import Iterator

from zenmux_emulator.write.plan import Events

MADE = [b"role", b"one", b"two", b"finish", b"[DONE]"]


def made() -> Iterator[bytes]:
    yield from MADE


def test_the_last_events_follow_at_once_and_iterating_gives_them_all_in_order() -> None:
    events = Events.paced_but_last(made, 2)
    assert list(events.marked()) == [
        (b"role", True),
        (b"one", True),
        (b"two", True),
        (b"finish", False),
        (b"[DONE]", False),
    ]
    assert list(events) == MADE == list(events)  # made afresh each time
    assert events.count() == len(MADE)


def test_events_given_marked_iterate_without_their_marks() -> None:
    events = Events(lambda: iter([(b"a", True), (b"b", False)]))
    assert list(events) == [b"a", b"b"] and events.count() == 2
