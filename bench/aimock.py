"""CopilotKit's aimock (npm `@copilotkit/aimock`), the strongest peer in the benchmark (issue 16).

The bench installs it itself, pinned, into `.venv/aimock` with npm, and starts it with one catch-all
fixture answering the benchmark's reply (`gen_scenarios.CONTENT`). aimock serves OpenRouter's
`/api/v1/chat/completions` path, so the load generator sends it the very requests it sends the
emulator. Node runs single-threaded JavaScript; pinned to the server core like the others, all its
threads share that core.

    .venv/bin/python bench/aimock.py --install   # install the pinned version unless it is there
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

from gen_scenarios import CONTENT, WORDS

VERSION = "1.43.0"
PACKAGE = "@copilotkit/aimock"
FOLDER = Path(__file__).resolve().parents[1] / ".venv" / "aimock"

#: aimock streams a reply in pieces of N characters, not in tokens. Six characters give 48 content
#: chunks for the 285 characters of CONTENT, the nearest to the emulator's and the baseline's 50.
STREAM_CHUNK_CHARS = 6


def package_dir(folder: Path = FOLDER) -> Path:
    return folder / "node_modules" / "@copilotkit" / "aimock"


def cli(folder: Path = FOLDER) -> Path:
    """The flag-driven server CLI (`llmock` bin; the `aimock` bin takes only a config file)."""
    return package_dir(folder) / "dist" / "cli.js"


def installed_version(folder: Path = FOLDER) -> str | None:
    try:
        manifest = json.loads((package_dir(folder) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) else None


def install(folder: Path = FOLDER) -> Path:
    """Install the pinned version into `folder` unless it is there already; the CLI's path."""
    if installed_version(folder) == VERSION and cli(folder).is_file():
        return cli(folder)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("aimock needs Node.js and npm (apt-get install nodejs npm); or run with --no-aimock")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(folder),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"{PACKAGE}@{VERSION}",
        ],
        check=True,
    )
    if installed_version(folder) != VERSION:
        raise RuntimeError(f"npm did not install {PACKAGE}@{VERSION} into {folder}")
    return cli(folder)


def fixture() -> dict[str, object]:
    """One fixture with an empty `match`: it answers every request with the benchmark's reply."""
    return {"fixtures": [{"match": {}, "response": {"content": CONTENT}}]}


def write_fixture(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "aimock-bench.json"
    path.write_text(json.dumps(fixture(), indent=2) + "\n", encoding="utf-8")
    return path


def stream_chunks() -> int:
    """Content chunks aimock sends for CONTENT (the emulator and the baseline send len(WORDS))."""
    return math.ceil(len(CONTENT) / STREAM_CHUNK_CHARS)


def argv(fixture_path: Path, folder: Path = FOLDER) -> list[str]:
    """Start aimock on a free loopback port. At log level info it prints its address once and
    nothing per request (bench/servers.py reads the address)."""
    node = shutil.which("node") or "node"
    return [
        node,
        str(cli(folder)),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--fixtures",
        str(fixture_path),
        "--chunk-size",
        str(STREAM_CHUNK_CHARS),
        "--log-level",
        "info",
    ]


assert abs(stream_chunks() - len(WORDS)) <= 2


if __name__ == "__main__":
    if sys.argv[1:] != ["--install"]:
        sys.exit("usage: bench/aimock.py --install")
    print(f"{PACKAGE}@{installed_version() if install() else '?'} in {FOLDER}")
