"""The Vertex AI / Gemini guide's examples run as written (against a test server instead of :8000)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
from pathlib import Path

from google import genai

from tests.docs.pages import page
from tests.faces.vertex.test_gemini_cli import GEMINI
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SECTION = page("guide/vertex.md")
DOCUMENTED_URL = "http://127.0.0.1:8000/api/vertex-ai"
ANSWER = "Hello! I am a scripted Gemini answer from the ZenMux Emulator."


def block(language: str) -> str:
    [found] = re.findall(rf"```{language}\n(.*?)```", SECTION, flags=re.DOTALL)
    return str(found)


def test_the_google_genai_example_prints_what_the_guide_says(shipped: EmulatorServer) -> None:
    out, names = io.StringIO(), dict[str, object]()
    for vertexai, version in ((True, "v1"), (False, "v1beta")):  # the guide says the Gemini API's form answers alike
        code = block("python").replace(DOCUMENTED_URL, shipped.url("vertex"))
        code = code.replace("vertexai=True", f"vertexai={vertexai}").replace(
            'api_version="v1"', f'api_version="{version}"'
        )
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/guide/vertex.md", "exec"), names)
        client = names["client"]
        assert isinstance(client, genai.Client)
        client.close()
    assert f"prints `{ANSWER}` twice" in SECTION
    assert out.getvalue() == (ANSWER + "\n" + ANSWER) * 2


def test_the_gemini_cli_example_does_what_the_guide_says(shipped: EmulatorServer, tmp_path: Path) -> None:
    assert GEMINI.exists(), f"Gemini CLI is not installed at {GEMINI}: run `make test`"
    script = block("sh").replace(DOCUMENTED_URL, shipped.url("vertex")).replace("\ngemini -m", f"\n{GEMINI} -m")
    (tmp_path / "home").mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path),
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    done = subprocess.run(
        ["bash", "-c", script],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = "notes.txt says: Buy milk"
    assert f"`{printed}`" in SECTION
    assert json.loads(done.stdout)["response"] == printed
