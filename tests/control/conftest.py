"""Fixtures of the control API tests: SDK clients closed when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from emulator.pytest_plugin.server import EmulatorServer
from tests.scenarios.helpers import sdk


@pytest.fixture
def open_client() -> Iterator[Callable[..., openai.OpenAI]]:
    """`open_client(server, session, **options)`: an official SDK client in its own emulator session."""
    clients: list[openai.OpenAI] = []

    def make(server: EmulatorServer, session: str = "control", **options: Any) -> openai.OpenAI:
        client = sdk(server, session, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
