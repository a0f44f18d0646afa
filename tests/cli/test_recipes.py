"""The recipes a newcomer copies (issue 18): the CI guide's GitHub Actions start-up step run as written,
the Dockerfile and compose file read against the emulator's own rules, and `make` with no target."""

from __future__ import annotations

import importlib.metadata
import os
import re
import signal
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from tests.cli.test_cli import CONSOLE_SCRIPT, clean_env
from tests.conftest import REPO, SHIPPED
from tests.docs.pages import page
from tests.support.polling import wait_for
from zenmux_emulator.cli.environment import variables
from zenmux_emulator.cli.main import serve_parser
from zenmux_emulator.settings import Settings

README = (REPO / "README.md").read_text(encoding="utf-8")
CI_GUIDE = page("guide/ci-and-scaling.md")
ACCEPTED = variables(serve_parser(), Settings.model_fields)


def workflow() -> dict[str, object]:
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", CI_GUIDE, re.DOTALL) if "runs-on: ubuntu-latest" in b]
    return dict(yaml.safe_load(block))


def start_step() -> str:
    steps = workflow()["jobs"]["test"]["steps"]  # type: ignore[index]
    [step] = [s for s in steps if s.get("name") == "Start the emulator"]
    return str(step["run"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_step(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    port = free_port()
    env = clean_env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        ["bash", "-e", "-c", script.replace("8000", str(port))],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )  # a hang guard only


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def stop(pid_file: Path) -> None:
    pid = int(pid_file.read_text().strip())
    os.kill(pid, signal.SIGTERM)  # the server the step started in the background, by its own pid
    assert wait_for(lambda: gone(pid), timeout=30)


def test_the_github_actions_start_step_waits_for_the_server(tmp_path: Path):
    assert (
        subprocess.run(
            [str(CONSOLE_SCRIPT), "init", "tests/scenarios"],
            cwd=tmp_path,
            env=clean_env(),
            capture_output=True,
            timeout=60,
        ).returncode
        == 0
    )
    done = run_step(start_step(), tmp_path)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.fullmatch(r"ready: http://127\.0\.0\.1:\d+/_emulator/health\n", done.stdout)
    finally:
        stop(tmp_path / "emulator.pid")
    assert "ZenMux emulator listening on" in (tmp_path / "emulator.log").read_text(encoding="utf-8")


def test_the_github_actions_start_step_fails_at_once_when_the_server_cannot_start(tmp_path: Path):
    (tmp_path / "tests" / "scenarios").mkdir(parents=True)
    (tmp_path / "tests" / "scenarios" / "bad.yaml").write_text(
        "rules:\n  - name: a\n    mtach: {}\n    reply: {content: x}\n", encoding="utf-8"
    )
    done = run_step(start_step(), tmp_path)
    assert done.returncode == 1
    assert "unknown key 'mtach'; did you mean 'match'?" in done.stdout  # the log, shown by the step
    assert "exited before" in done.stderr and "did not answer within" not in done.stderr  # not the 30 s timeout


def test_the_dockerfile_runs_as_a_user_with_a_health_check_on_the_health_endpoint():
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    users = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    [check] = re.findall(r"^HEALTHCHECK .*?CMD (\[.*?\])", dockerfile, re.MULTILINE | re.DOTALL)
    command = yaml.safe_load(check)
    assert command[:2] == ["zenmux-emulator", "wait"] and "--timeout" in command
    assert command[command.index("--url") + 1] == "http://127.0.0.1:8000"  # polled at /_emulator/health
    for source in re.findall(r"^COPY (.+) \S+$", dockerfile, re.MULTILINE):
        for name in source.split():
            assert (REPO / name).exists(), name
    env = dict(re.findall(r"(ZENMUX_EMULATOR_\w+)=(\S+)", dockerfile))
    assert env and set(env) <= set(ACCEPTED)  # names the emulator accepts, or it would refuse to start
    assert env["ZENMUX_EMULATOR_PORT"] == "8000" and env["ZENMUX_EMULATOR_HOST"] == "0.0.0.0"
    assert re.search(r"^EXPOSE 8000$", dockerfile, re.MULTILINE)


def test_the_compose_file_uses_accepted_variables_and_the_image_folder():
    compose = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
    service = compose["services"]["zenmux-emulator"]
    assert set(service["environment"]) <= set(ACCEPTED)
    assert service["ports"] == ["127.0.0.1:8000:8000"]
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    home = re.findall(r"^WORKDIR (\S+)", dockerfile, re.MULTILINE)[-1]
    assert [v.split(":")[1] for v in service["volumes"]] == [f"{home}/scenarios"]


def test_make_without_a_target_lists_the_targets():
    done = subprocess.run(["make", "-s"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    listed = re.findall(r"^  (\w+) ", done.stdout, re.MULTILINE)
    assert {"help", "run", "test", "lint", "validate", "bench", "clean"} <= set(listed)


def test_make_run_installs_what_the_readme_example_imports():
    plan = subprocess.run(
        ["make", "-n", "-B", "run"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "pip install --quiet -e '.[examples]'" in plan
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(requirement.startswith("openai") for requirement in extras["examples"])
    assert "from openai import OpenAI" in README


def test_the_shipped_folder_is_what_the_package_carries():
    examples = REPO / "zenmux_emulator" / "examples"
    assert examples.resolve() == SHIPPED.resolve()  # one folder: the package's examples never drift


def test_the_github_actions_job_has_no_placeholder_and_installs_this_versions_wheel():
    """Issue 42: the install command named `github.com/<owner>/…`, which a copy could not run."""
    steps = workflow()["jobs"]["test"]["steps"]  # type: ignore[index]
    commands = [str(step.get("run", "")) for step in steps]
    assert not any(re.search(r"<[a-z_-]+>", command) for command in commands), commands
    [install] = [c for c in commands if c.startswith("pip install ")]
    release = importlib.metadata.version("zenmux-emulator")
    assert f"tools/zenmux_emulator-{release}-py3-none-any.whl" in install.split()
