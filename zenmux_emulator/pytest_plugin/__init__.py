"""Run the emulator inside a test process (the pytest fixtures build on `EmulatorServer`)."""

from zenmux_emulator.pytest_plugin.server import EmulatorServer

__all__ = ["EmulatorServer"]
