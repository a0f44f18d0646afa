"""The package as a new user installs it (issue 18): `pip install .` into a new virtualenv outside the
repository, then `init`, `serve` and the README's first request, with nothing of the checkout in reach."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import Served, clean_env, serve
from tests.cli.test_newcomer import VERSION, post_json, readme_curl_body
from tests.conftest import REPO, SHIPPED

__all__ = ["serve"]  # the fixture that starts (and always stops) `serve` processes
INSTALL_TIMEOUT = 900  # a hang guard: a fresh virtualenv and its dependencies, from the package index


def test_pip_install_then_init_and_serve_answer_the_readme_curl(serve, tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=INSTALL_TIMEOUT)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(REPO)],
                               cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert installed.returncode == 0, installed.stderr
    script = venv / "bin" / "zenmux-emulator"
    home = tmp_path / "home"  # a user's folder: no scenarios/, no checkout
    home.mkdir()

    def run(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), *words], cwd=home, env=clean_env(), capture_output=True, text=True,
                              timeout=120)

    assert run("--version").stdout == f"zenmux-emulator {VERSION}\n"
    assert "zenmux-emulator init scenarios" in run("serve", "--port", "0").stderr  # nothing to serve yet: how to
    package = subprocess.run([str(venv / "bin" / "python"), "-c", "import zenmux_emulator, pathlib; "
                              "print(pathlib.Path(zenmux_emulator.__file__).parent)"],
                             cwd=home, env=clean_env(), capture_output=True, text=True, check=True, timeout=120)
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
    assert served.stop() == 0
    gone = run("wait", "--url", served.base_url, "--timeout", "1")
    assert gone.returncode == 1
    assert "did not answer within 1 s" in gone.stderr
