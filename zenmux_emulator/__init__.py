"""The ZenMux Emulator: a scripted, deterministic stand-in for ZenMux's chat completions API."""

from zenmux_emulator.app import create_app
from zenmux_emulator.foundation.errors import (
    EmulatorError,
    RequestRejected,
    ScenarioError,
)
from zenmux_emulator.rules.compile import load_paths
from zenmux_emulator.settings import Settings

__all__ = ["EmulatorError", "RequestRejected", "ScenarioError", "Settings", "create_app", "load_paths"]
