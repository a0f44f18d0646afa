"""Claude Code itself (npm @anthropic-ai/claude-code, pinned and installed by `make test`), run
headless as a user would against the shipped scenarios: turn 1 makes it run its own Bash tool,
turn 2 answers from the command's output. This test fails, never skips, when Claude Code cannot run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import REPO
from zenmux_emulator.pytest_plugin.server import EmulatorServer

CLAUDE = Path(os.environ.get("ZENMUX_TEST_CLAUDE", REPO / ".venv/claude/node_modules/.bin/claude"))
MODEL = "anthropic/claude-sonnet-4.5"


def run_claude(server: EmulatorServer, prompt: str, workdir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    assert CLAUDE.exists(), f"Claude Code is not installed at {CLAUDE}: run `make test` (it installs it from npm)"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": server.anthropic_url,
        "ANTHROPIC_AUTH_TOKEN": "sk-ai-v1-claude-code",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return subprocess.run(
        [
            str(CLAUDE),
            "-p",
            prompt,
            "--model",
            MODEL,
            "--allowedTools",
            "Bash",
            "--output-format",
            "json",
            "--max-turns",
            "3",
        ],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_claude_code_runs_a_scripted_session(shipped: EmulatorServer, tmp_path: Path) -> None:
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    home.mkdir()
    done = run_claude(shipped, "Create hello.txt with a greeting", workdir, home)
    assert done.returncode == 0, f"claude exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    result = json.loads(done.stdout)
    assert result["is_error"] is False and result["num_turns"] == 2
    assert result["result"] == 'Done: hello.txt says "Hello from the ZenMux Emulator".'
    assert (workdir / "hello.txt").read_text(encoding="utf-8") == "Hello from the ZenMux Emulator\n"

    turns = [
        e
        for e in shipped.state.journal.entries()
        if e.api == "anthropic"
        and e.rule is not None
        and e.rule.startswith("claude-code-")
        and str(workdir) in json.dumps(e.body)
    ]
    assert [(e.rule, e.status, e.stream) for e in turns] == [
        ("claude-code-run-command", 200, True),
        ("claude-code-report", 200, True),
    ]
    assert all(e.path == "/api/anthropic/v1/messages" for e in turns)
    # turn 2 carried the signed thinking block back unchanged, and it verified (the check is strict)
    assistant = next(m for m in turns[1].body["messages"] if m["role"] == "assistant")
    assert assistant["content"][0]["type"] == "thinking"
    assert turns[1].warnings == [] and turns[1].unmet_expectations == []
