"""The bench's tests: its scripts (`bench/`) importable as modules, and a server over the bench's rules."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from gen_scenarios import write_scenarios  # noqa: E402  (bench/ is on the path from the line above)


@pytest.fixture(scope="module")
def bench_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    """A server over the bench's 10 generated rules, as `make bench` serves them."""
    folder = write_scenarios(tmp_path_factory.mktemp("bench") / "rules", 10)
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], watch=False)) as server:
        yield server
