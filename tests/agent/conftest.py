"""Fixtures of the agent tests: a session name per test and SDK clients on the shipped server."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator

import openai
import pytest

from emulator.pytest_plugin.server import EmulatorServer
from tests.agent.helpers import async_sdk, sdk


@pytest.fixture
def session(request: pytest.FixtureRequest) -> str:
    """A session name of this test alone, so reply-sequence counters on the shared server start at 0."""
    return "agent-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:24]


@pytest.fixture
def client(shipped: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(shipped, session) as c:
        yield c


@pytest.fixture
async def aclient(shipped: EmulatorServer, session: str) -> AsyncIterator[openai.AsyncOpenAI]:
    async with async_sdk(shipped, session) as c:
        yield c
