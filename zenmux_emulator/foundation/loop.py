"""The event loop the server runs on: uvloop where it is installed (a dependency on Linux and
macOS), asyncio's own loop elsewhere.

uvloop's loop is libuv under Cython: its sockets, timers and callbacks cost less per request and
per paced event than asyncio's selector loop (docs/performance.md has the measured difference).
The emulator's code is plain asyncio and runs the same on either loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop factory, or None (asyncio's default) when uvloop is not installed."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run` on the loop above."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
