"""clients.lock is what `make test` installs: every pinned client is there at its pinned version,
every test a lock line names exists, and the Makefile reads its npm pins from it."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess

from tests.clients.helpers import NODE_SDK
from tests.conftest import REPO
from tools.test_latest import read_lock

NPM_FOLDERS = {
    "@anthropic-ai/claude-code": REPO / ".venv/claude",
    "@openai/codex": REPO / ".venv/codex",
    "@anthropic-ai/sdk": NODE_SDK,
    "@google/gemini-cli": REPO / ".venv/gemini",
}


def test_the_installed_clients_are_the_pinned_ones() -> None:
    clients = read_lock()
    assert {c.registry for c in clients} == {"pypi", "npm"} and len(clients) >= 8
    for client in clients:
        assert client.tests and all((REPO / t).is_file() for t in client.tests), client
        if client.registry == "pypi":
            assert importlib.metadata.version(client.name) == client.pinned, client.name
        else:
            package = NPM_FOLDERS[client.name] / "node_modules" / client.name / "package.json"
            assert json.loads(package.read_text(encoding="utf-8"))["version"] == client.pinned, client.name


def test_make_reads_the_npm_pins_and_lists_the_drift_lane() -> None:
    done = subprocess.run(
        ["make", "-n", "-C", str(REPO), "test-latest", ".venv/codex/node_modules/.bin/codex", "-W", "clients.lock"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    codex = next(c for c in read_lock() if c.name == "@openai/codex")
    assert f"@openai/codex@{codex.pinned}" in done.stdout
    assert "tools/test_latest.py" in done.stdout


def test_the_js_helpers_packages_are_pinned_and_agree_with_the_lock() -> None:
    """The TypeScript helper's build and its test project are installed with `npm ci` from committed
    package-lock.json files, at exact versions; a client also in clients.lock is at the lock's version."""
    pinned = {c.name: c.pinned for c in read_lock() if c.registry == "npm"}
    for folder in (REPO / "clients/js", REPO / "tests/clients/js/project"):
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        locked = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))["packages"]
        wanted = {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}
        assert wanted and all(v[0].isdigit() for v in wanted.values()), (folder, wanted)
        for name, version in wanted.items():
            assert locked[f"node_modules/{name}"]["version"] == version, (folder, name)
            assert pinned.get(name, version) == version, f"{name} is pinned at {pinned.get(name)} in clients.lock"
    assert json.loads((REPO / "clients/js/package.json").read_text(encoding="utf-8")).get("dependencies") is None
    done = subprocess.run(
        ["make", "-n", "-C", str(REPO), "-B", ".venv/js/zenmux-emulator.tgz", ".venv/js/node_modules/.installed"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(" ci") == 2 and "npm run --silent build" in done.stdout, done.stdout
