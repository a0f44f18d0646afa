"""Waiting for an outcome the server reaches on its own time (a journal entry, a reload): polls,
never asserts a duration."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(
    condition: Callable[[], Any], timeout: float = 10.0, step: float = 0.05, nudge: Callable[[], None] | None = None
) -> Any:
    """Poll `condition` until it is truthy (returning its value) or `timeout` passes (returning it once more).

    `nudge` runs before each poll, e.g. to write a file again in case the watcher was not yet listening.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if nudge is not None:
            nudge()
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


def wait_for(condition: Callable[[], Any], timeout: float = 15.0) -> Any:
    """`wait_until`, failing the test when the condition never holds."""
    value = wait_until(condition, timeout)
    assert value, "the condition never held"
    return value
