"""The package as a new user installs it (issues 18 and 30): the install lines of docs/getting-started.md run as
written (from the clone, and from the wheel `make dist` builds) into a new virtualenv, then `init`, `serve` and the
page's first request, with nothing of the checkout in reach."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.cli.test_cli import Served, clean_env, serve
from tests.cli.test_newcomer import VERSION, post_json, readme_curl_body
from tests.conftest import REPO, SHIPPED
from tests.docs.pages import blocks, page

__all__ = ["serve"]  # the fixture that starts (and always stops) `serve` processes
INSTALL_TIMEOUT = 900  # a hang guard: a fresh virtualenv and its dependencies, from the package index


def install_block(words: str) -> str:
    """The page's install block that runs `words`."""
    [block] = [b for b in blocks(page("getting-started.md"), "sh") if words in b]
    return block


@pytest.mark.parametrize("words", ['pip install ".[examples]"', 'pip install "$(ls dist/'], ids=["clone", "wheel"])
def test_the_install_lines_then_init_and_serve_answer_the_first_curl(serve, tmp_path: Path, words: str):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=INSTALL_TIMEOUT)
    clone = tmp_path / "clone"  # the checkout's files as a clone has them, so that builds write only there
    shutil.copytree(
        REPO,
        clone,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "site", "*.egg-info", "__pycache__", ".pytest_cache", "bench"
        ),
    )
    # make's own python is the new virtualenv's (the user's active one), not a .venv of the clone
    block = install_block(words).replace("make dist", f"make dist BIN={venv / 'bin'}")
    path = f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"  # the new virtualenv's python, as if activated
    installed = subprocess.run(
        ["bash", "-e", "-c", block],
        cwd=clone,
        env=clean_env(PATH=path),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    assert installed.returncode == 0, installed.stderr
    imported = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import openai"], capture_output=True, text=True, timeout=120
    )
    assert imported.returncode == 0, imported.stderr  # the examples' dependency came with the [examples] extra
    script = venv / "bin" / "zenmux-emulator"
    home = tmp_path / "home"  # a user's folder: no scenarios/, no checkout
    home.mkdir()

    def run(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(script), *words], cwd=home, env=clean_env(), capture_output=True, text=True, timeout=120
        )

    assert run("--version").stdout == f"zenmux-emulator {VERSION}\n"
    assert "zenmux-emulator init scenarios" in run("serve", "--port", "0").stderr  # nothing to serve yet: how to
    package = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import zenmux_emulator, pathlib; print(pathlib.Path(zenmux_emulator.__file__).parent)",
        ],
        cwd=home,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    where = Path(package.stdout.strip())
    assert where.is_relative_to(venv), where  # the installed copy, not the checkout
    examples = where / "examples"
    assert not examples.is_symlink()
    assert sorted(p.name for p in examples.iterdir()) == sorted(p.name for p in SHIPPED.glob("*.yaml"))
    for shipped in SHIPPED.glob("*.yaml"):  # the wheel carries the project's scenarios, as they are
        assert (examples / shipped.name).read_bytes() == shipped.read_bytes()
    [license_file] = venv.glob("lib/python*/site-packages/zenmux_emulator-*.dist-info/licenses/LICENSE")
    assert license_file.read_text(encoding="utf-8").startswith("MIT License")

    assert run("init", "demo").returncode == 0
    served: Served = serve([str(script), "serve", "--scenarios", "demo", "--port", "0"], cwd=home).wait_listening()
    body = post_json(f"{served.base_url}/chat/completions", readme_curl_body())
    assert body["choices"][0]["message"]["content"] == "Hi hello there! How can I help?"  # type: ignore[index]
    assert run("wait", "--url", served.base_url, "--timeout", "20").returncode == 0
    static = (
        REPO / "zenmux_emulator" / "server" / "inspector" / "static"
    )  # the inspector page: its files came with the package
    origin = served.base_url.removesuffix("/api/v1")
    for name in ("", "inspector.js", "inspector.css"):
        with urllib.request.urlopen(f"{origin}/_emulator/ui/{name}", timeout=30) as answer:
            assert answer.read() == (static / (name or "index.html")).read_bytes()
    assert served.stop() == 0
    gone = run("wait", "--url", served.base_url, "--timeout", "1")
    assert gone.returncode == 1
    assert "did not answer within 1 s" in gone.stderr
