"""One server over the shipped misbehaving.yaml for the folder (tests isolate by session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import FROZEN, SHIPPED
from tests.misbehave.helpers import OPEN
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    """Close the SDK clients a test made (tests/misbehave/helpers.py)."""
    yield
    while OPEN:
        OPEN.pop().close()


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(
        Settings(port=0, scenarios=[str(SHIPPED / "misbehaving.yaml")], clock=FROZEN, watch=False)
    ) as running:
        yield running
