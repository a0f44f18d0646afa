"""A server over scenarios/failures.yaml alone, for the whole failures folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import FROZEN, SHIPPED
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

FAILURES_YAML = SHIPPED / "failures.yaml"


@pytest.fixture(scope="module")
def failures() -> Iterator[EmulatorServer]:
    """An emulator over the shipped failures.yaml only (tests isolate by session)."""
    with EmulatorServer(Settings(port=0, scenarios=[str(FAILURES_YAML)], clock=FROZEN, watch=False)) as server:
        yield server
