"""The ZenMux Emulator: a scripted, deterministic stand-in for ZenMux's chat completions API."""

from emulator.app import create_app
from emulator.errors import EmulatorError, RequestRejected, ScenarioError
from emulator.scenario.loader import load_paths
from emulator.settings import Settings

__all__ = ["EmulatorError", "RequestRejected", "ScenarioError", "Settings", "create_app", "load_paths"]
