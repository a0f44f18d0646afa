"""Codex CLI itself (npm @openai/codex, pinned and installed by `make test`), run headless as a user
would against the shipped scenarios: turn 1 makes it run a command with its own exec_command tool,
turn 2 answers from the command's output. This test fails, never skips, when Codex cannot run."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from tests.conftest import REPO
from tests.docs.pages import page
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Finding
from zenmux_emulator.core.journal.verdict import verdict as read_verdict
from zenmux_emulator.core.spec import readers_of
from zenmux_emulator.faces.shipped import FACES
from zenmux_emulator.pytest_plugin.server import EmulatorServer

CODEX = Path(os.environ.get("ZENMUX_TEST_CODEX", REPO / ".venv/codex/node_modules/.bin/codex"))
MODEL = "openai/gpt-5"
GUIDE = page("guide/responses.md")
README_URL = "http://127.0.0.1:8000/api/v1"
PROMPT = "Create codex.txt with a greeting"


def verdict(entries: Iterable[JournalEntry]) -> list[Finding]:
    """The verdict with the shipped faces' readers, as each face's `FaceSpec` registers them."""
    return read_verdict(entries, readers_of(FACES))


def readme_config() -> str:
    """The Responses guide's Codex config.toml, which this test runs as written (the base URL aside)."""
    [block] = re.findall(r"```toml\n# \$CODEX_HOME/config\.toml\n(.*?)```", GUIDE, flags=re.DOTALL)
    assert README_URL in block and 'wire_api = "responses"' in block
    return str(block)


def run_codex(server: EmulatorServer, prompt: str, workdir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    assert CODEX.exists(), f"Codex is not installed at {CODEX}: run `make test` (it installs it from npm)"
    codex_home = home / "codex"
    codex_home.mkdir()
    config = readme_config().replace(README_URL, server.base_url)
    (codex_home / "config.toml").write_text(config, encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "ZENMUX_API_KEY": "sk-ai-v1-codex",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", "--sandbox", "workspace-write", prompt],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_codex_runs_a_scripted_session(shipped: EmulatorServer, tmp_path: Path) -> None:
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    home.mkdir()
    assert f'codex exec --skip-git-repo-check --sandbox workspace-write "{PROMPT}"' in GUIDE
    done = run_codex(shipped, PROMPT, workdir, home)
    assert done.returncode == 0, f"codex exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    # stdout carries only the final agent message; progress goes to stderr
    assert done.stdout.strip() == 'Done: codex.txt says "Hello from the ZenMux Emulator".', done.stderr
    assert (workdir / "codex.txt").read_text(encoding="utf-8") == "Hello from the ZenMux Emulator\n"

    turns = [
        e
        for e in shipped.state.journal.entries()
        if e.api == "responses"
        and e.rule is not None
        and e.rule.startswith("codex-")
        and str(workdir) in json.dumps(e.body)
    ]
    assert [(e.rule, e.status, e.stream) for e in turns] == [
        ("codex-run-command", 200, True),
        ("codex-report", 200, True),
    ]
    assert all(e.path == "/api/v1/responses" and e.body["model"] == MODEL for e in turns)
    # turn 2 re-sent the whole history: the reasoning item with the encrypted content the emulator
    # minted (verified, as the check is strict), the exec_command call, and the command's output
    items = turns[1].body["input"]
    [reasoning] = [i for i in items if i.get("type") == "reasoning"]
    assert reasoning["encrypted_content"]
    [call] = [i for i in items if i.get("type") == "function_call"]
    assert call["name"] == "exec_command" and "codex.txt" in json.loads(call["arguments"])["cmd"]
    [output] = [i for i in items if i.get("type") == "function_call_output"]
    assert output["call_id"] == call["call_id"] and "Hello from the ZenMux Emulator" in output["output"]
    assert not any(w.startswith("reasoning check:") for e in turns for w in e.warnings)
    assert verdict(turns) == []
