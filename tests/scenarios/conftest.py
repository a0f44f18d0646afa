"""Fixtures of the scenario tests: an SDK client on the shipped scenarios."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from zenmux_emulator.pytest_plugin.server import EmulatorServer


@pytest.fixture
def shipped_client(shipped: EmulatorServer, session: str, open_client: Callable[..., openai.OpenAI]) -> openai.OpenAI:
    """An SDK client on the shipped scenarios, in this test's own session."""
    return open_client(shipped, session)
