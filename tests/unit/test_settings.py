"""Settings built in code are what the code says; only the command line reads ZENMUX_EMULATOR_*."""

from __future__ import annotations

import pytest

from zenmux_emulator.cli.main import build_parser, settings_from
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings


def test_an_exported_variable_does_not_leak_into_servers_built_in_code(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ZENMUX_EMULATOR_CHAOS_RATE", "0.5")
    monkeypatch.setenv("ZENMUX_EMULATOR_STRICT", "true")
    assert (Settings().chaos_rate, Settings().strict) == (0.0, False)
    with EmulatorServer(Settings(scenarios=[], port=0)) as server:  # a free port: 8000 may be busy
        assert (server.state.settings.chaos_rate, server.state.settings.strict) == (0.0, False)
    from_env = settings_from(build_parser().parse_args(["serve", "--chaos-rate", "0.25"]))
    assert (from_env.chaos_rate, from_env.strict) == (0.25, True)  # flags win over the environment
