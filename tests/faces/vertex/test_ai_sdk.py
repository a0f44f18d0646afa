"""The AI SDK's Google provider (npm @ai-sdk/google and ai, pinned in aisdk/package.json and
installed by `make test`): generateText and streamText with a tool, each running the tool loop to
its answer through a Gemini 3 model, the signed call passed back by the SDK. Fails, never skips,
when the packages are missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import API_KEY, REPO, MakeServer
from tests.faces.vertex.helpers import GEMINI_3, SCENARIO

INSTALLED = REPO / ".venv/aisdk/node_modules"
SCRIPT = Path(__file__).parent / "aisdk" / "check.mjs"


def test_generate_text_and_stream_text_run_a_tool_loop(make_server: MakeServer, tmp_path: Path) -> None:
    assert (INSTALLED / "@ai-sdk" / "google").exists(), (
        f"@ai-sdk/google is not installed in {INSTALLED}: run `make test`"
    )
    server = make_server(SCENARIO)
    shutil.copy(SCRIPT, tmp_path / "check.mjs")
    (tmp_path / "node_modules").symlink_to(INSTALLED, target_is_directory=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "NO_PROXY": "127.0.0.1,localhost",
        # the provider calls {baseURL}/{model}: a model with a slash is a path, so `models/` comes first
        "BASE_URL": server.url("vertex") + "/v1beta",
        "API_KEY": API_KEY,
        "MODEL": f"models/{GEMINI_3}",
    }
    done = subprocess.run(
        ["node", str(tmp_path / "check.mjs")],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    answer = 'The weather tool says: {"name":"get_weather","content":{"result":"sunny in Paris"}}'
    assert result == {
        "plain": "Hello from the emulator, Gemini style!",
        "tooled": answer,
        "steps": 2,
        "calls": [["get_weather", {"city": "Paris"}]],
        "streamed": answer,
    }
    entries = server.state.journal.entries()
    assert [(e.rule, e.status, e.stream) for e in entries] == [
        ("greeting", 200, False),
        ("weather-call", 200, False),
        ("weather-answer", 200, False),
        ("weather-call", 200, True),
        ("weather-answer", 200, True),
    ]
    assert all(e.warnings == [] for e in entries)
