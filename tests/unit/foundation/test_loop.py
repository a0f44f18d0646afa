"""foundation/loop.py: the server's loop is uvloop's (a dependency on Linux and macOS)."""

from __future__ import annotations

import asyncio
import sys

from zenmux_emulator.foundation.loop import loop_factory, run


async def loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_the_server_runs_on_uvloop_where_it_is_a_dependency() -> None:
    assert sys.platform != "win32"  # this suite's hosts; uvloop is not installed on Windows
    assert loop_factory() is not None
    assert run(loop_module()).startswith("uvloop")


def test_run_returns_what_the_coroutine_returns() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert run(answer()) == 42
