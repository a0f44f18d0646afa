"""The control API reference's table names every route, and each row's curl example works as written
(against a test server instead of localhost:8000)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import MakeServer
from tests.control.test_openapi import control_routes
from tests.docs.pages import page
from tests.scenarios.helpers import post_chat
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SECTION = page("reference/control-api.md")
ROW = re.compile(r"^\| `(GET|POST|PUT|DELETE) /_emulator(/[^`?]*)[^`]*` \| .* \| `(curl [^`]*)` \|$", re.MULTILINE)
ROWS = ROW.findall(SECTION)
RULES = "rules:\n  - name: hi\n    scenario: agent\n    match: {last_user: hi}\n    reply: {content: hi}\n"


def test_the_table_names_every_route_once(make_server: MakeServer):
    documented = [
        (method, re.sub(r"/N$", "/{name}", re.sub(r"^/states/agent$", "/states/{scenario}", path)))
        for method, path, _ in ROWS
    ]
    assert len(documented) == len(set(documented))
    assert set(documented) == control_routes(make_server(RULES))


def run_example(server: EmulatorServer, example: str, cwd: Path) -> str:
    command = example.replace("localhost:8000", f"127.0.0.1:{server.port}")
    command = command.replace("curl -s", "curl -sS --fail-with-body")  # a 4xx fails, showing the body
    done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
    return done.stdout


def test_every_example_answers_2xx(make_server: MakeServer, tmp_path: Path):
    assert shutil.which("curl"), "the reference's examples use curl"
    (tmp_path / "extra.yaml").write_text("rules:\n  - name: extra\n    reply: {content: extra}\n", encoding="utf-8")
    server = make_server(RULES)
    chat = {"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": "hi"}]}
    assert post_chat(server, chat, {"X-Emulator-Session": "ci-42"}).status == 200  # the session the examples use
    outputs = [run_example(server, example, tmp_path) for _, _, example in ROWS]
    assert len(outputs) == 21 and all(out.startswith("{") for out in outputs)
    assert server.state.registry.api_names == []  # loaded, replaced, then removed
    assert server.state.clock.now() == 1_767_225_600  # frozen at the example's time
