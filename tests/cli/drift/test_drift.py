"""`zenmux-emulator drift` as a user runs it (a real process), against a stand-in ZenMux that
differs in known ways (standin.py) and against a second emulator that does not differ at all.
Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.drift.standin import CHANGES, StandIn
from tests.cli.test_cli import CONSOLE_SCRIPT, clean_env, run
from tests.conftest import MakeServer
from zenmux_emulator.cli.drift.probes import probe_set
from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE

KEY = "sk-ai-v1-drift-secret-0123456789abcdef"


@pytest.fixture
def standin(make_server: MakeServer) -> Iterator[StandIn]:
    server = StandIn(make_server().origin, KEY).start()
    try:
        yield server
    finally:
        server.stop()


def drift(tmp_path: Path, *options: str) -> tuple[Any, dict[str, Any]]:
    """The command's run (key in $ZENMUX_API_KEY) and its JSON report."""
    report = tmp_path / "report.json"
    done = run([str(CONSOLE_SCRIPT), "drift", *options, "--report", str(report)], env=clean_env(ZENMUX_API_KEY=KEY))
    assert report.exists(), done.stderr
    return done, json.loads(report.read_text(encoding="utf-8"))


def found(report: dict[str, Any], section: str = "differences") -> set[tuple[str, str, str, str]]:
    return {(d["face"], d["probe"], d["kind"], d["path"]) for d in report[section]}


CHANGED = {(c["face"], c["probe"], c["kind"], c["path"]) for c in CHANGES}


def test_each_difference_is_named_with_its_path_and_the_exit_is_1(standin: StandIn, tmp_path: Path) -> None:
    done, report = drift(tmp_path, "--upstream", f"{standin.origin}/api/v1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert found(report) == CHANGED
    for change in CHANGES:
        assert change["path"] in done.stdout
    assert "upstream model_not_found, emulator invalid_params" in done.stdout
    assert standin.seen_keys > 0 and standin.wrong_keys == 0  # the key was sent, to the upstream only


def test_the_key_is_nowhere_in_the_output_the_report_or_the_logs(standin: StandIn, tmp_path: Path) -> None:
    done, _ = drift(tmp_path, "--upstream", standin.origin)
    text = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert standin.seen_keys > 0
    for where in (done.stdout, done.stderr, text):
        assert KEY not in where
    assert KEY[8:] not in done.stdout + done.stderr + text


def test_the_differences_listed_as_known_exit_0(standin: StandIn, tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    entries = [{**change, "why": "the stand-in's known change"} for change in CHANGES]
    known.write_text(yaml.safe_dump({"known": entries}), encoding="utf-8")
    done, report = drift(tmp_path, "--upstream", standin.origin, "--known", str(known))
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["differences"] == []
    assert found(report, "known") == CHANGED


def test_against_a_second_emulator_there_is_no_drift(make_server: MakeServer, tmp_path: Path) -> None:
    second = make_server()
    done, report = drift(tmp_path, "--upstream", second.origin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["differences"] == [] and report["known"] == [] and report["skipped"] == []
    assert len(report["probes"]) >= 20 and all(p["upstream_status"] for p in report["probes"])
    assert "same shape" in done.stdout


def test_the_budget_stops_before_the_probe_that_would_pass_it(
    standin: StandIn, make_server: MakeServer, tmp_path: Path
) -> None:
    first, second = probe_set(["chat"], [], DEFAULT_CATALOGUE)[:2]
    budget = first.cost(DEFAULT_CATALOGUE) + second.cost(DEFAULT_CATALOGUE) / 2
    emulator = make_server()
    done, report = drift(
        tmp_path,
        "--upstream",
        standin.origin,
        "--emulator",
        emulator.origin,
        "--faces",
        "chat",
        "--budget",
        f"{budget:.9f}",
    )
    assert standin.seen_keys == 1  # the first probe only
    assert report["skipped"][0] == "chat stream" and len(report["skipped"]) == len(report["probes"]) - 1
    assert "budget" in done.stdout
    assert done.returncode == 1  # the one probe sent, chat plain, drifted
    assert {d["probe"] for d in report["differences"]} == {"plain"}


def test_a_run_within_its_budget_and_without_drift_exits_0_else_3(make_server: MakeServer, tmp_path: Path) -> None:
    second = make_server()
    done, report = drift(tmp_path, "--upstream", second.origin, "--faces", "chat", "--budget", "0")
    assert done.returncode == 3 and report["differences"] == [] and report["skipped"]
    done, report = drift(tmp_path, "--upstream", second.origin, "--faces", "chat", "--budget", "1")
    assert done.returncode == 0 and report["skipped"] == []


def test_usage_problems_exit_2_and_name_what_is_wrong(tmp_path: Path) -> None:
    no_key = run([str(CONSOLE_SCRIPT), "drift", "--upstream", "http://127.0.0.1:9"])
    assert no_key.returncode == 2 and "ZENMUX_API_KEY" in no_key.stderr
    bad_face = run(
        [str(CONSOLE_SCRIPT), "drift", "--upstream", "http://127.0.0.1:9", "--faces", "chat,nope"],
        env=clean_env(ZENMUX_API_KEY=KEY),
    )
    assert bad_face.returncode == 2 and "nope" in bad_face.stderr
    assert KEY not in bad_face.stderr


def test_faces_and_models_pick_what_is_probed(make_server: MakeServer, tmp_path: Path) -> None:
    second = make_server()
    done, report = drift(
        tmp_path, "--upstream", second.origin, "--faces", "anthropic", "--models", "anthropic/claude-sonnet-4.5"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert {p["face"] for p in report["probes"]} == {"anthropic"}
    paid = [p for p in report["probes"] if p["probe"] not in ("unknown-model", "bad-parameter")]
    assert {p["model"] for p in paid} == {"anthropic/claude-sonnet-4.5"}
    assert "reasoning" in {p["probe"] for p in paid}  # the model reasons, so it is probed
