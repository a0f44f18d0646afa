"""The ZenMux Emulator: a scripted, deterministic stand-in for ZenMux's gateway APIs.

The names below are imported on first use, so that importing a part of the package (the pytest
plugin, say) does not import the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zenmux_emulator.core.rules.compile import load_paths
    from zenmux_emulator.foundation.errors import EmulatorError, RequestRejected, ScenarioError
    from zenmux_emulator.server.app import create_app
    from zenmux_emulator.settings import Settings

from zenmux_emulator.foundation.version import VERSION as __version__

__all__ = [
    "EmulatorError",
    "RequestRejected",
    "ScenarioError",
    "Settings",
    "__version__",
    "create_app",
    "load_paths",
]

_HOMES = {
    "create_app": "zenmux_emulator.server.app",
    "EmulatorError": "zenmux_emulator.foundation.errors",
    "RequestRejected": "zenmux_emulator.foundation.errors",
    "ScenarioError": "zenmux_emulator.foundation.errors",
    "load_paths": "zenmux_emulator.core.rules.compile",
    "Settings": "zenmux_emulator.settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'zenmux_emulator' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
