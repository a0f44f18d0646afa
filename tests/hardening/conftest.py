"""Raw HTTP connections to the servers of a test, closed when it ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.hardening.faces import Wire
from zenmux_emulator.pytest_plugin.server import EmulatorServer

WireTo = Callable[[EmulatorServer], Wire]


@pytest.fixture
def wire_to() -> Iterator[WireTo]:
    """`wire_to(server)`: a kept-alive raw HTTP connection to it."""
    opened: list[Wire] = []

    def make(server: EmulatorServer) -> Wire:
        opened.append(Wire(server))
        return opened[-1]

    yield make
    for wire in opened:
        wire.conn.close()
