"""`make test-latest`: every client pinned in clients.lock at its newest release, in .venv-latest,
each client's tests run against it, and the drift table printed.

    python3 tools/test_latest.py [--venv .venv-latest]

The project and its test extras are installed unconstrained, then each `pypi` client is upgraded to
its newest release and each `npm` client installed at `latest` under .venv-latest/npm/. The tests
a client's lock line names run with that venv's Python (the npm clients found through
ZENMUX_TEST_CLAUDE, ZENMUX_TEST_CODEX and ZENMUX_TEST_NODE_SDK). The table has one row a client:
pinned, newest, passed/failed, and the first failure. Drift is reported, not failed on: the exit
status is 0 unless the lane itself could not be set up. Standard library only, so it runs before
any venv exists.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCK = REPO / "clients.lock"
NPM_BINARIES = {
    "@anthropic-ai/claude-code": ("ZENMUX_TEST_CLAUDE", "node_modules/.bin/claude"),
    "@openai/codex": ("ZENMUX_TEST_CODEX", "node_modules/.bin/codex"),
    "@anthropic-ai/sdk": ("ZENMUX_TEST_NODE_SDK", ""),
    "@google/gemini-cli": ("ZENMUX_TEST_GEMINI", "node_modules/.bin/gemini"),
}


@dataclass(frozen=True)
class Client:
    registry: str
    name: str
    pinned: str
    tests: tuple[str, ...]


def read_lock(path: Path = LOCK) -> list[Client]:
    clients = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if fields:
            registry, name, pinned, *tests = fields
            clients.append(Client(registry, name, pinned, tuple(tests)))
    return clients


def run(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **options)  # type: ignore[call-overload, no-any-return]


def npm_folder(venv: Path, client: Client) -> Path:
    return venv / "npm" / re.sub(r"[^a-z0-9]+", "-", client.name.lower()).strip("-")


def install(venv: Path, clients: list[Client]) -> dict[str, str]:
    """Set the lane up; the newest version of each client, or why it could not be installed."""
    python = venv / "bin" / "python"
    if not python.exists():
        made = run([sys.executable, "-m", "venv", str(venv)])
        if made.returncode != 0:
            raise SystemExit(f"test-latest: could not make {venv}: {made.stderr.strip()}")
    steps = [
        [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
        [str(python), "-m", "pip", "install", "--quiet", "-e", ".[test]"],
    ]
    for step in steps:
        done = run(step, cwd=REPO)
        if done.returncode != 0:
            raise SystemExit(f"test-latest: {' '.join(step[2:])} failed: {done.stderr.strip()[-2000:]}")
    newest: dict[str, str] = {}
    for client in clients:
        if client.registry == "pypi":
            done = run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", client.name], cwd=REPO)
            probe = run([str(python), "-c", f"import importlib.metadata as m; print(m.version({client.name!r}))"])
            newest[client.name] = probe.stdout.strip() if done.returncode == 0 else "install failed"
        else:
            folder = npm_folder(venv, client)
            done = run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(folder),
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    f"{client.name}@latest",
                ]
            )
            package = folder / "node_modules" / client.name / "package.json"
            ok = done.returncode == 0 and package.exists()
            newest[client.name] = json.loads(package.read_text())["version"] if ok else "install failed"
    return newest


def first_failure(output: str) -> str:
    """The first test pytest's summary names, with the first line of its error; else its closing line."""
    lines = output.splitlines()
    failed = next((line.split(" ", 1)[1] for line in lines if line.startswith(("FAILED ", "ERROR "))), None)
    error = next((line[1:].strip() for line in lines if line.startswith("E ") and line[1:].strip()), None)
    if failed is not None:
        return (failed.split(" - ", 1)[0] + (f" - {error}" if error else ""))[:200]
    closing = [line for line in lines if re.search(r"\d+ (failed|errors?)\b", line)]
    return (closing[-1] if closing else lines[-1] if lines else "no output").strip("= ")[:200]


def test(venv: Path, clients: list[Client], client: Client) -> tuple[bool, str]:
    env = {**os.environ}
    for other in clients:
        if other.registry == "npm" and other.name in NPM_BINARIES:
            variable, relative = NPM_BINARIES[other.name]
            env[variable] = str(npm_folder(venv, other) / relative)
    done = run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pytest",
            "-q",
            "-rfE",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            *client.tests,
        ],
        cwd=REPO,
        env=env,
        timeout=1800,
    )
    return done.returncode == 0, "" if done.returncode == 0 else first_failure(done.stdout + done.stderr)


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--venv", type=Path, default=REPO / ".venv-latest")
    venv = parser.parse_args().venv.resolve()
    clients = read_lock()
    newest = install(venv, clients)
    rows = [("client", "pinned", "newest", "result", "first failure")]
    for client in clients:
        if newest[client.name] == "install failed":
            rows.append((client.name, client.pinned, "?", "failed", "the newest release did not install"))
            continue
        passed, failure = test(venv, clients, client)
        rows.append((client.name, client.pinned, newest[client.name], "passed" if passed else "failed", failure))
    print("\nClient drift (clients.lock pins against the newest releases):\n")
    print(table(rows))
    drifted = [row[0] for row in rows[1:] if row[3] == "failed"]
    print(
        f"\n{len(drifted)} of {len(clients)} clients fail at their newest release"
        + (f": {', '.join(drifted)}" if drifted else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
