"""The Anthropic guide's examples run as written (against a test server instead of :8000)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
from pathlib import Path

import anthropic

from tests.docs.pages import page
from tests.faces.anthropic.test_claude_code import CLAUDE
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SECTION = page("guide/anthropic.md")
DOCUMENTED_URL = "http://127.0.0.1:8000/api/anthropic"


def block(language: str) -> str:
    [found] = re.findall(rf"```{language}\n(.*?)```", SECTION, flags=re.DOTALL)
    return str(found)


def test_the_sdk_example_prints_what_the_readme_says(shipped: EmulatorServer) -> None:
    out, names = io.StringIO(), dict[str, object]()
    with contextlib.redirect_stdout(out):
        exec(
            compile(block("python").replace(DOCUMENTED_URL, shipped.anthropic_url), "docs/guide/anthropic.md", "exec"),
            names,
        )
    for value in names.values():  # the example leaves its client open, as a script may; a test closes it
        if isinstance(value, anthropic.Anthropic):
            value.close()
    assert out.getvalue() == "Hi hello there! How can I help?\none two three four five"


def test_the_claude_code_example_does_what_the_readme_says(shipped: EmulatorServer, tmp_path: Path) -> None:
    assert CLAUDE.exists(), f"Claude Code is not installed at {CLAUDE}: run `make test`"
    script = block("sh").replace(DOCUMENTED_URL, shipped.anthropic_url).replace("\nclaude -p", f"\n{CLAUDE} -p")
    (tmp_path / "home").mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path),
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    done = subprocess.run(
        ["bash", "-c", script + "\ncat hello.txt"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = 'Done: hello.txt says "Hello from the ZenMux Emulator".'
    assert f"prints `{printed}`" in SECTION
    assert done.stdout == printed + "\nHello from the ZenMux Emulator\n"
