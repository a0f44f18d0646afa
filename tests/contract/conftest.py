"""Fixtures of the contract tests: a session name per test and openai SDK clients on the shipped server."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator

import openai
import pytest

from emulator.pytest_plugin.server import EmulatorServer
from tests.conftest import API_KEY
from tests.contract.helpers import SESSION_HEADER


@pytest.fixture
def session(request: pytest.FixtureRequest) -> str:
    """A session name of this test alone, so reply-sequence counters on the shared server start at 0."""
    return "contract-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:24]


def sdk_client(server: EmulatorServer, session: str | None = None, api_key: str = API_KEY) -> openai.OpenAI:
    headers = {SESSION_HEADER: session} if session else None
    return openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0, default_headers=headers)


@pytest.fixture
def client(shipped: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    """A sync openai client on the shipped server, in this test's session."""
    with sdk_client(shipped, session) as c:
        yield c


@pytest.fixture
async def aclient(shipped: EmulatorServer, session: str) -> AsyncIterator[openai.AsyncOpenAI]:
    """An async openai client on the shipped server, in this test's session."""
    async with openai.AsyncOpenAI(base_url=shipped.base_url, api_key=API_KEY, max_retries=0,
                                  default_headers={SESSION_HEADER: session}) as c:
        yield c
