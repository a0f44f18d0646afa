"""The weekly CI example of docs/guide/drift.md: the page shows docs/examples/drift.yml as it is,
it never runs on a push, and its drift step, run as written against a second emulator in place of
the real gateway, reports no drift."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import yaml

from tests.cli.test_cli import CONSOLE_SCRIPT, clean_env
from tests.conftest import REPO, MakeServer

PAGE = REPO / "docs" / "guide" / "drift.md"
EXAMPLE = REPO / "docs" / "examples" / "drift.yml"
BLOCK = re.compile(r"<!-- example: run by tests/cli/drift/test_workflow.py -->\n```yaml\n(.*?)```", re.DOTALL)


def test_the_page_shows_the_example_file_and_it_runs_weekly_or_by_hand_only() -> None:
    shown = BLOCK.search(PAGE.read_text(encoding="utf-8"))
    assert shown is not None
    assert shown.group(1) == EXAMPLE.read_text(encoding="utf-8")
    workflow = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    assert not (REPO / ".github" / "workflows" / "zenmux-drift.yml").exists()


def test_the_drift_step_as_written_reports_no_drift_against_a_second_emulator(
    make_server: MakeServer, tmp_path: Path
) -> None:
    steps = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["jobs"]["drift"]["steps"]
    [step] = [s for s in steps if s.get("id") == "drift"]
    script = step["run"].replace("https://zenmux.ai", make_server().origin)
    output = tmp_path / "github_output"
    env = clean_env(
        ZENMUX_API_KEY="sk-ai-v1-workflow-0123456789",
        GITHUB_OUTPUT=str(output),
        PATH=f"{CONSOLE_SCRIPT.parent}{os.pathsep}{os.environ['PATH']}",
    )
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert output.read_text(encoding="utf-8") == "code=0\n", done.stdout
    report = json.loads((tmp_path / "drift-report.json").read_text(encoding="utf-8"))
    assert report["differences"] == [] and report["skipped"] == []
    assert "same shape" in (tmp_path / "drift.txt").read_text(encoding="utf-8")
