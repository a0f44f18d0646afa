"""The fuzz suite's servers and hypothesis's settings: derandomized (the same examples on every
run, so CI is deterministic), no example database, no deadline (a shared CI machine is slow at
times; speed is bench/'s business)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.conftest import served_yaml
from tests.hardening.faces import Wire
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = """\
rules:
  - name: hi
    match: {last_user: {contains: hi}}
    reply: {content: hi}
"""


def fuzzing(examples: int) -> settings:
    """Settings of one fuzz test: `examples` examples, the same ones every run."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    """One server for a module's fuzzing: a rule, the default reply for the rest, a frozen clock."""
    with served_yaml(tmp_path_factory.mktemp("fuzz"), RULES) as server:
        yield server


@pytest.fixture
def wire(target: EmulatorServer) -> Iterator[Wire]:
    opened = Wire(target)
    yield opened
    opened.conn.close()
