"""Gemini CLI itself (npm @google/gemini-cli, pinned and installed by `make test`), run headless as a
user would against the shipped scenarios (the gemini-cli-* rules of scenarios/gemini.yaml): turn 1
makes it call its own read_file tool, turn 2 answers from the file. This test fails, never skips,
when Gemini CLI cannot run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import REPO
from zenmux_emulator.pytest_plugin.server import EmulatorServer

GEMINI = Path(os.environ.get("ZENMUX_TEST_GEMINI", REPO / ".venv/gemini/node_modules/.bin/gemini"))
MODEL = "google/gemini-2.5-pro"
SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
"""Without it the CLI stops with "Invalid auth method selected"."""


def run_gemini(
    server: EmulatorServer, prompt: str, workdir: Path, home: Path, *, model: str | None = MODEL
) -> subprocess.CompletedProcess[str]:
    """`gemini -p` headless, `-m model` unless None; its temporary files (error reports) under `home/tmp`."""
    assert GEMINI.exists(), f"Gemini CLI is not installed at {GEMINI}: run `make test` (it installs it from npm)"
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    (home / "tmp").mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "GEMINI_API_KEY": "sk-ai-v1-gemini-cli",
        "GOOGLE_GEMINI_BASE_URL": server.url("vertex"),
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return subprocess.run(
        [str(GEMINI), *(["-m", model] if model else []), "-p", prompt, "-o", "json"],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_gemini_cli_runs_a_scripted_session(shipped: EmulatorServer, tmp_path: Path) -> None:
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    home.mkdir()
    (workdir / "notes.txt").write_text("Buy milk and call the gateway team\n", encoding="utf-8")
    done = run_gemini(shipped, "What does notes.txt say?", workdir, home)
    assert done.returncode == 0, f"gemini exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    result = json.loads(done.stdout)
    assert result["response"] == "notes.txt says: Buy milk and call the gateway team"
    assert result["stats"]["tools"]["byName"]["read_file"]["success"] == 1

    turns = [
        e
        for e in shipped.state.journal.entries()
        if e.api == "vertex"
        and e.rule is not None
        and e.rule.startswith("gemini-cli-")
        and str(workdir) in json.dumps(e.body)
    ]
    assert [(e.rule, e.status, e.stream) for e in turns] == [
        ("gemini-cli-read-file", 200, True),
        ("gemini-cli-report", 200, True),
    ]
    assert all(e.path == f"/api/vertex-ai/v1beta/models/{MODEL}:streamGenerateContent" for e in turns)
    # turn 2 carried the signed call back unchanged, and it verified (the check is strict)
    model_turn = next(c for c in turns[1].body["contents"] if c.get("role") == "model")
    call = next(p for p in model_turn["parts"] if "functionCall" in p)
    assert call["functionCall"]["name"] == "read_file" and call["thoughtSignature"]
    assert turns[1].warnings == [] and turns[1].unmet_expectations == []


def test_gemini_cli_without_a_model_routes_and_answers_cleanly(shipped: EmulatorServer, tmp_path: Path) -> None:
    """Its router asks gemini-3.5-flash-lite with an upper-case responseJsonSchema (refused as not a
    JSON Schema before issue 42: a stack trace and an error report, then a fallback)."""
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    home.mkdir()
    done = run_gemini(shipped, "Say hello to the routed gemini", workdir, home, model=None)
    assert done.returncode == 0, f"gemini exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    assert "    at " not in done.stderr and "Error" not in done.stderr, done.stderr
    assert list((home / "tmp").glob("gemini-client-error-*")) == []
    assert json.loads(done.stdout)["response"]
    routed = [e for e in shipped.state.journal.entries() if "Say hello to the routed gemini" in json.dumps(e.body)]
    assert [(e.rule, e.status) for e in routed][:1] == [("gemini-cli-router", 200)]
    assert all(e.status == 200 for e in routed)
