"""Fixtures shared by every test: real emulator servers on free loopback ports."""

from __future__ import annotations

import hashlib
import os
import tempfile
import textwrap
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.support.clients import API_KEY, async_sdk, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

__all__ = ["API_KEY", "FROZEN", "REPO", "SHIPPED", "MakeServer"]

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios"
FROZEN = 1_767_225_600  # 2026-01-01T00:00:00Z

MakeServer = Callable[..., EmulatorServer]

# the validated scenario files of every server the suite starts, in process or as a command, are kept in
# the temporary folder (scenario/cache.py), whatever XDG_CACHE_HOME says
os.environ["ZENMUX_EMULATOR_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / f"zenmux-emulator-tests-{os.getuid()}")


@contextmanager
def served_yaml(folder: Path, text: str) -> Iterator[EmulatorServer]:
    """A server over one scenario file written into `folder`, frozen at FROZEN, for a module's tests."""
    (folder / "scenario.yaml").write_text(text, encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False)) as server:
        yield server


@pytest.fixture(scope="session")
def shipped() -> Iterator[EmulatorServer]:
    """One server for the whole run over the shipped scenarios/ (tests isolate by session header)."""
    with EmulatorServer(Settings(port=0, scenarios=[str(SHIPPED)], clock=FROZEN, watch=False)) as server:
        yield server


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[MakeServer]:
    """Start a server over YAML written on the spot: `make_server(yaml_text, strict=True, ...)`.

    The YAML is dedented and written to a temporary folder; keyword arguments are Settings fields.
    """
    started: list[EmulatorServer] = []

    def make(*yaml_texts: str, **settings: Any) -> EmulatorServer:
        folder = tmp_path / f"scenarios{len(started)}"
        folder.mkdir()
        for i, text in enumerate(yaml_texts):
            (folder / f"s{i}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
        options: dict[str, Any] = {"port": 0, "scenarios": [str(folder)], "clock": FROZEN, "watch": False}
        options.update(settings)
        server = EmulatorServer(Settings(**options))
        try:
            server.start()
        except BaseException:
            server.stop()
            raise
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def session(request: pytest.FixtureRequest) -> str:
    """A session name of this test alone, so reply-sequence counters on a shared server start at 0."""
    return "test-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:24]


@pytest.fixture
def open_client() -> Iterator[Callable[..., openai.OpenAI]]:
    """`open_client(server, session, **options)`: an official SDK client, closed when the test ends."""
    clients: list[openai.OpenAI] = []

    def make(server: EmulatorServer, session: str = "tests", **options: Any) -> openai.OpenAI:
        client = sdk(server, session, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(shipped: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    """A sync openai client on the shipped server, in this test's session."""
    with sdk(shipped, session) as c:
        yield c


@pytest.fixture
async def aclient(shipped: EmulatorServer, session: str) -> AsyncIterator[openai.AsyncOpenAI]:
    """An async openai client on the shipped server, in this test's session."""
    async with async_sdk(shipped, session) as c:
        yield c
