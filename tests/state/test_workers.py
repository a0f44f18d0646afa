"""`zenmux-emulator serve --workers N` as a user runs it: real processes on one port that act as
one gateway, through `--state` or the private redis-server it starts; a worker killed mid-run
loses nothing the journal in Redis had accepted, and is started again."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.cli.test_cli import PYTHON_M, Served, clean_env
from tests.state.helpers import SCENARIO, ask, content, control
from zenmux_emulator.settings import Settings, available_cores

SLOW_KEY = """
settings:
  limits: {rpm: 1000, window_s: 60, keys: {sk-slow: {rpm: 3}}}
"""

LOOKS = 400
"""Requests a test sends at most while waiting to see every worker answer (bounded, never timed)."""


@pytest.fixture
def scenarios(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    (folder / "limits.yaml").write_text(SLOW_KEY, encoding="utf-8")
    return folder


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[Served] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Served:
        served = Served(
            [*PYTHON_M, "serve", "--port", "0", "--no-watch", *args],
            tmp_path / f"err{len(started)}.log",
            env or clean_env(),
        )
        started.append(served)
        return served.wait_listening()

    yield start
    for served in started:
        served.close()


def said(served: Served) -> str:
    """The line after `serve`'s three start lines (the URL, what it serves, the inspector page's URL): the workers'."""
    assert served._lines.get(timeout=30).startswith("serving chat, ")
    assert served._lines.get(timeout=30).startswith("inspector (the requests as they arrive, in a browser): http://")
    return served._lines.get(timeout=30).rstrip("\n")


def origin(served: Served) -> str:
    return served.base_url.removesuffix("/api/v1")


LOOKS_AT_ONCE = 8
"""Health requests sent together: one after another, the worker that answered the last one is
often the first awake for the next (on a loaded machine, all 400 of them), so the looks overlap:
while one worker answers, a connection that arrives is taken by another."""


def pids(served: Served, count: int) -> set[int]:
    """The workers' pids, from the health of enough requests (each on a new connection) to see `count`."""
    seen: set[int] = set()
    with ThreadPoolExecutor(LOOKS_AT_ONCE) as pool:
        for _ in range(LOOKS // LOOKS_AT_ONCE):
            answers = pool.map(lambda _: control(origin(served), "health"), range(LOOKS_AT_ONCE))
            seen.update(answer.json()["pid"] for answer in answers)
            if len(seen) >= count:
                break
    return seen


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(p) for p in (task / "children").read_text().split())
    return found


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_two_workers_act_as_one_gateway_through_redis(serve: Any, scenarios: Path, redis_url: str):
    served = serve(
        "--scenarios", str(scenarios), env=clean_env(ZENMUX_EMULATOR_WORKERS="2", ZENMUX_EMULATOR_STATE=redis_url)
    )
    assert said(served).startswith("2 workers; their state is shared through redis://127.0.0.1:")
    assert len(pids(served, 2)) == 2
    flaky = [ask(origin(served), "w-flaky", "flaky") for _ in range(3)]
    assert [answer.status for answer in flaky] == [429, 429, 200]
    steps = [content(ask(origin(served), "w-steps", "step")) for _ in range(4)]
    assert steps == ["one", "two", "three", "three"]
    limited = [ask(origin(served), "w-rpm", "hello", key="sk-slow") for _ in range(4)]
    assert [answer.status for answer in limited] == [200, 200, 200, 429]
    journal = control(origin(served), "journal").json()
    assert journal["count"] == 11
    assert len({entry["request_id"] for entry in journal["entries"]}) == 11
    added = control(
        origin(served),
        "scenarios?name=late",
        b"rules: [{name: late, match: {last_user: late}, reply: {content: added late}}]",
        **{"Content-Type": "application/yaml"},
    )
    assert added.status == 201, added.text
    answers = [ask(origin(served), f"late-{i}", "late") for i in range(LOOKS // 20)]  # new connections: both workers
    assert {content(answer) for answer in answers} == {"added late"}


def test_a_worker_killed_mid_run_loses_nothing_the_journal_accepted(serve: Any, scenarios: Path, redis_url: str):
    served = serve("--scenarios", str(scenarios), "--workers", "2", "--state", redis_url)
    victim = min(pids(served, 2))
    answered: list[str] = []

    def send(i: int) -> None:
        if i == 20:
            os.kill(victim, signal.SIGKILL)  # while the other threads' requests are in flight
        try:
            answer = ask(origin(served), f"kill-{i % 3}", "step")
        except OSError:
            return  # a request the killed worker held: never answered, so never promised to the journal
        if answer.status == 200:
            answered.append(answer.headers["x-zenmux-requestid"])

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(send, range(60)))
    journal = {entry["request_id"]: entry for entry in control(origin(served), "journal").json()["entries"]}
    assert len(answered) >= 40
    assert set(answered) <= set(journal)
    assert all(journal[rid]["status"] == 200 for rid in answered)
    again = pids(served, 2)
    assert victim not in again
    assert len(again) == 2  # the supervisor started another worker
    assert f"worker {victim} exited (signal 9); starting another" in served.stderr()
    assert [content(ask(origin(served), f"kill-{n}", "step")) for n in range(3)] == ["three"] * 3


def test_workers_without_state_share_a_private_redis_and_stop_with_it_on_ctrl_c(serve: Any, scenarios: Path):
    served = serve("--scenarios", str(scenarios), "--workers", "2")
    assert said(served) == "2 workers; their state is shared through a private redis-server"
    assert len(pids(served, 2)) == 2
    assert [ask(origin(served), "p-flaky", "flaky").status for _ in range(3)] == [429, 429, 200]
    family = children(served.process.pid)
    assert len(family) == 3  # two workers and redis-server
    assert served.stop(signal.SIGINT) == 0
    assert all(gone(pid) for pid in family)


def test_a_bad_scenario_file_stops_start_up_before_any_worker(tmp_path: Path, scenarios: Path):
    (scenarios / "broken.yaml").write_text("rules:\n  - name: a\n    mtach: {}\n", encoding="utf-8")
    served = Served(
        [*PYTHON_M, "serve", "--port", "0", "--workers", "2", "--scenarios", str(scenarios)],
        tmp_path / "err.log",
        clean_env(),
    )
    try:
        assert served.wait() == 1
        assert "broken.yaml:3" in served.stderr()
        assert "not started" in served.stderr()
    finally:
        served.close()


def test_a_state_that_does_not_answer_stops_start_up_without_showing_its_password(tmp_path: Path):
    served = Served(
        [*PYTHON_M, "serve", "--port", "0", "--state", "redis://:hunter2@127.0.0.1:1/0"],
        tmp_path / "err.log",
        clean_env(),
    )
    try:
        assert served.wait() == 1
        said = served.stderr()
        assert "not started: the shared state redis://127.0.0.1:1/0 does not answer" in said
        assert "hunter2" not in said
    finally:
        served.close()


def test_workers_auto_takes_the_cores_available():
    assert Settings(workers="auto").workers == available_cores() == len(os.sched_getaffinity(0))
    with pytest.raises(ValueError, match="state must be a Redis URL"):
        Settings(state="memcached://localhost")


def test_after_a_control_api_change_every_worker_reports_and_serves_it(serve: Any, scenarios: Path, redis_url: str):
    """Issue 40, item 9: a worker that had served no request since a control-API change reported
    the old scenario set in its health, and when Redis was then emptied, the one that found it so
    could put the old set back (the API's scenario lost in 2 runs of 5)."""
    served = serve("--scenarios", str(scenarios), "--workers", "2", "--state", redis_url)
    assert len(pids(served, 2)) == 2
    added = control(
        origin(served),
        "scenarios?name=late",
        b"rules: [{name: late, match: {last_user: late}, reply: {content: added late}}]",
        **{"Content-Type": "application/yaml"},
    )
    assert added.status == 201, added.text
    reported: dict[int, list[str]] = {}
    for _ in range(LOOKS):  # each on a new connection, until both workers have answered
        health = control(origin(served), "health").json()
        reported[health["pid"]] = health["api_scenarios"]
        if len(reported) == 2:
            break
    assert list(reported.values()) == [["late"], ["late"]], reported
    with redis.Redis.from_url(redis_url) as client:
        client.flushdb()  # Redis restarted empty: the first worker to find it so puts its scenarios back
    answers = [ask(origin(served), f"late-{i}", "late") for i in range(LOOKS // 20)]  # new connections: both workers
    assert {content(answer) for answer in answers} == {"added late"}
