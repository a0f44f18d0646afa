"""The TypeScript helper (`clients/js`, npm package `zenmux-emulator`) as a Node suite uses it: its packed tarball
installed in a new project next to Vitest, Jest, the openai and anthropic Node SDKs and the AI SDK (all from
tests/clients/js/project's lock, which `make test` installs), each test run by `npx vitest run` or `npx jest`
against the real emulator the helper starts (`ZENMUX_EMULATOR_COMMAND`: this venv's `python -m zenmux_emulator`)
or attaches to. Fails, never skips, when `make test` has not installed them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import FROZEN, REPO, MakeServer

JS = Path(os.environ.get("ZENMUX_TEST_JS", REPO / ".venv/js"))
"""Where `make test` packs the helper (`zenmux-emulator.tgz`) and installs the project's `node_modules`."""
PROJECT = REPO / "tests/clients/js/project"
ACCOUNT = "zenmux: 1 request(s) no rule matched:"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A new Node project: the fixture's files, its locked packages, and the helper unpacked from its tarball."""
    tarball = JS / "zenmux-emulator.tgz"
    assert tarball.is_file() and (JS / "node_modules/.installed").is_file(), f"run `make test`: nothing in {JS}"
    folder = tmp_path / "project"
    shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns("node_modules"))
    modules = folder / "node_modules"
    modules.mkdir()
    for installed in (JS / "node_modules").iterdir():
        if installed.name not in {"zenmux-emulator", ".installed", ".package-lock.json"}:
            (modules / installed.name).symlink_to(installed)
    with tarfile.open(tarball) as packed:
        packed.extractall(modules / "unpacked", filter="data")
    (modules / "unpacked/package").rename(modules / "zenmux-emulator")
    return folder


def node_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZENMUX_EMULATOR_")}
    env.update(
        ZENMUX_EMULATOR_COMMAND=f"{sys.executable} -m zenmux_emulator",
        PYTHONPATH=str(REPO),
        NO_COLOR="1",
        FORCE_COLOR="0",
        CI="1",
    )
    return {**env, **extra}


def run(project: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npx", "--no-install", *argv],
        cwd=project,
        env=node_env(**extra),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def vitest(project: Path, folder: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return run(project, "vitest", "run", "--dir", folder, **extra)


def jest(project: Path, folder: str, **extra: str) -> subprocess.CompletedProcess[str]:
    files = sorted(str(p) for p in (project / folder).glob("*.test.mjs"))
    return run(project, "jest", "--runTestsByPath", *files, NODE_OPTIONS="--experimental-vm-modules", **extra)


def test_vitest_tests_get_a_session_each_on_the_emulator_the_helper_starts(project: Path) -> None:
    done = vitest(project, "vitest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Tests\s+4 passed \(4\)", done.stdout), done.stdout


def test_a_vitest_failure_starts_with_the_unmatched_account(project: Path) -> None:
    done = vitest(project, "vitest-failing")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"→ {ACCOUNT}" in done.stdout, done.stdout  # the run's own line for the failed test
    after = done.stderr.split("FAIL  vitest-failing/unmatched.test.ts > a request no rule matches\n", 1)[1]
    lines = after.splitlines()
    assert lines[0] == f"AssertionError: {ACCOUNT}", after
    assert lines[1].startswith("  #") and 'last user: "what is the time?"' in lines[1], after
    assert "near miss: weather (addRule at " in lines[2] and "unmatched.test.ts:6)" in lines[2], after
    assert after.index(ACCOUNT) < after.index("to be 'Sunny'"), after


def test_jest_tests_get_a_session_each_on_the_global_setups_emulator(project: Path) -> None:
    done = jest(project, "jest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Tests:\s+2 passed, 2 total", done.stderr), done.stderr


def test_a_jest_failure_starts_with_the_unmatched_account(project: Path) -> None:
    done = jest(project, "jest-failing")
    assert done.returncode == 1, done.stdout + done.stderr
    after = done.stderr.split("● a request no rule matches\n", 1)[1]
    lines = [line.strip() for line in after.splitlines() if line.strip()]
    assert lines[0] == ACCOUNT, after
    assert "near miss: weather (addRule at " in lines[2] and "unmatched.test.mjs:8)" in lines[2], after
    assert after.index(ACCOUNT) < after.index("expect(received).toBe(expected)"), after


def test_the_helper_attaches_to_a_running_emulator(project: Path, make_server: MakeServer) -> None:
    server = make_server()
    done = vitest(project, "vitest", ZENMUX_EMULATOR_URL=server.base_url, ZENMUX_EMULATOR_COMMAND="no-such-command")
    assert done.returncode == 0, done.stdout + done.stderr
    entries = server.state.journal.entries()
    rules = [e.rule for e in entries if e.api]
    assert rules == ["greet", "greet", "greet", "call", None, "first", "then", "then"], rules
    assert len({e.session for e in entries if e.api}) == 3, "each test had a key, so a session, of its own"
    with urllib.request.urlopen(f"{server.origin}/_emulator/scenarios", timeout=10) as answer:
        assert json.load(answer)["rules"] == [], "every rule a test loaded is removed after it"
    with urllib.request.urlopen(f"{server.origin}/_emulator/clock", timeout=10) as answer:
        assert json.load(answer) == {"now": FROZEN, "frozen": True}, "the clock is put back as the test found it"
    with urllib.request.urlopen(f"{server.origin}/_emulator/misbehave", timeout=10) as answer:
        assert not json.load(answer)["sessions"], "the test's fault stops with it"


def test_without_a_command_start_emulator_names_how_to_install_one(project: Path) -> None:
    script = "import('zenmux-emulator').then(m => m.startEmulator()).catch(e => { console.error(e.message); process.exit(3); })"
    env = node_env(PATH=str(Path(shutil.which("node") or "node").parent))
    del env["ZENMUX_EMULATOR_COMMAND"]
    done = subprocess.run(
        ["node", "-e", script], cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no `zenmux-emulator` command on PATH" in done.stderr, done.stderr
    assert "pipx install" in done.stderr and "ZENMUX_EMULATOR_COMMAND" in done.stderr, done.stderr


def test_start_options_pass_through_to_serve(project: Path, tmp_path: Path) -> None:
    (tmp_path / "greet.yaml").write_text(
        "rules:\n  - name: greet\n    match: {last_user: hello}\n    reply: {content: Hi}\n", encoding="utf-8"
    )
    script = """
import { startEmulator } from "zenmux-emulator";
const emulator = await startEmulator({ scenarios: process.argv[1], strict: true, seed: 7, clock: 1767225600 });
const ask = (text) => fetch(emulator.baseUrl("chat") + "/chat/completions", {
  method: "POST",
  headers: { Authorization: "Bearer sk-options", "Content-Type": "application/json" },
  body: JSON.stringify({ model: "openai/gpt-5", messages: [{ role: "user", content: text }] }),
});
const [hit, miss] = [await ask("hello"), await ask("bye")];
const body = await hit.json();
console.log(JSON.stringify({ hit: [hit.status, body.choices[0].message.content, body.created], miss: miss.status,
  faces: emulator.faceNames, anthropic: emulator.baseUrl("anthropic").replace(/:\\d+/, ":PORT") }));
await emulator.stop();
"""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, str(tmp_path / "greet.yaml")],
        cwd=project,
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["hit"] == [200, "Hi", 1767225600] and got["miss"] == 404  # the scenario, --clock, --strict
    assert {"chat", "anthropic", "responses", "vertex", "objectiveai"} <= set(got["faces"])
    assert got["anthropic"] == "http://127.0.0.1:PORT/api/anthropic"
