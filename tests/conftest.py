"""Fixtures shared by every test: real emulator servers on free loopback ports."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.pytest_plugin.server import EmulatorServer
from emulator.settings import Settings

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios"
API_KEY = "sk-ai-v1-test-key"
FROZEN = 1_767_225_600  # 2026-01-01T00:00:00Z

MakeServer = Callable[..., EmulatorServer]


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
