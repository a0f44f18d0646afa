"""Run the emulator inside a test process (the pytest fixtures build on `EmulatorServer`).

`EmulatorServer` is imported on first use: pytest imports this package's plugin in every run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zenmux_emulator.pytest_plugin.server import EmulatorServer

__all__ = ["EmulatorServer"]


def __getattr__(name: str) -> Any:
    if name == "EmulatorServer":
        from zenmux_emulator.pytest_plugin.server import EmulatorServer

        return EmulatorServer
    raise AttributeError(f"module 'zenmux_emulator.pytest_plugin' has no attribute {name!r}")
