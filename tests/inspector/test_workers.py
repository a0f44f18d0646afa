"""The inspector under `serve --workers 2 --state redis://…` (a real redis-server): the page, served by
either worker, lists the requests both workers answered, read from the shared journal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.cli.test_cli import PYTHON_M, Served, clean_env
from tests.state.conftest import redis_server, redis_url  # noqa: F401 - the shared-state tests' real Redis
from tests.state.helpers import SCENARIO, ask, control

LOOKS = 200
"""Requests sent at most while waiting for both workers to answer some (bounded, never timed)."""


@pytest.fixture
def served(tmp_path: Path, redis_url: str) -> Iterator[Served]:  # noqa: F811
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    process = Served(
        [
            *PYTHON_M,
            "serve",
            "--port",
            "0",
            "--no-watch",
            "--workers",
            "2",
            "--state",
            redis_url,
            "--scenarios",
            str(folder),
        ],
        tmp_path / "err.log",
        clean_env(),
    )
    yield process.wait_listening()
    process.close()


def test_the_page_lists_what_both_workers_answered(served, visit):
    origin = served.base_url.removesuffix("/api/v1")
    workers: set[int] = set()
    for _ in range(LOOKS):  # each request on a new connection: the kernel spreads them over the workers
        assert ask(origin, "workers", "step").status == 200
        entries = control(origin, "journal?session=workers").json()["entries"]
        workers = {entry["worker"] for entry in entries}
        if len(workers) == 2:
            break
    assert len(workers) == 2, "the requests all went to one worker"
    page = visit(origin).open()
    rows = page.locator("#requests tbody tr")
    expect(rows).to_have_count(len(entries))
    shown = {int(rows.nth(i).get_attribute("data-worker") or 0) for i in range(len(entries))}
    assert shown == workers
    ask(origin, "workers", "flaky")  # after the page loaded, whichever worker answers it
    expect(rows).to_have_count(len(entries) + 1)
