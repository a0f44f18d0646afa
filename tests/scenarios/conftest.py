"""Fixtures of the scenario tests: a session name per test and SDK clients that are closed afterwards."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from emulator.pytest_plugin.server import EmulatorServer
from tests.scenarios.helpers import sdk


@pytest.fixture
def session(request: pytest.FixtureRequest) -> str:
    """A session name of this test alone, so reply-sequence counters start at 0."""
    return "scenarios-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:24]


@pytest.fixture
def open_client() -> Iterator[Callable[..., openai.OpenAI]]:
    """`open_client(server, session, **options)`: an SDK client, closed when the test ends."""
    clients: list[openai.OpenAI] = []

    def make(server: EmulatorServer, session: str, **options: Any) -> openai.OpenAI:
        client = sdk(server, session, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def shipped_client(shipped: EmulatorServer, session: str, open_client: Callable[..., openai.OpenAI]) -> openai.OpenAI:
    """An SDK client on the shipped scenarios, in this test's own session."""
    return open_client(shipped, session)
