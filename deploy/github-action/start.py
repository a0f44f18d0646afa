"""The GitHub Action's start step (`action.yml` at the repository's root): install the emulator unless it is
installed, start `zenmux-emulator serve` in the background on a free (or the given) port, wait until it answers,
and hand its base URLs to the job: step outputs (`url`, `base-url`, `<face>-url`, `pid`, `log`) and
environment variables (`ZENMUX_EMULATOR_URL`, which the Node helper attaches to, and `ZENMUX_<FACE>_BASE_URL`).

Inputs arrive as `INPUT_*` variables (the action's `env:`); standard library only, so it runs on any Python 3.11+.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

START_TIMEOUT = 60.0


def inputs() -> dict[str, str]:
    return {k.removeprefix("INPUT_").lower(): v.strip() for k, v in os.environ.items() if k.startswith("INPUT_")}


def command(given: dict[str, str], work: Path) -> list[str]:
    """The emulator's command: the `command` input, else a virtualenv of its own with `install` pip-installed."""
    if given.get("command"):
        return shlex.split(given["command"])
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, given.get("install") or "zenmux-emulator"], check=True)
    return [str(venv / "bin/zenmux-emulator")]


def serve_args(given: dict[str, str], work: Path) -> list[str]:
    scenarios = shlex.split(given.get("scenarios", ""))
    if not scenarios:
        (work / "scenarios").mkdir(exist_ok=True)
        scenarios = [str(work / "scenarios")]
    args = ["serve", "--host", given.get("host") or "127.0.0.1", "--port", given.get("port") or "0"]
    args += ["--log-format", "json", "--no-watch", "--scenarios", *scenarios]
    for name in ("seed", "clock", "journal"):
        if given.get(name):
            args += [f"--{name}", given[name]]
    if given.get("strict", "false").lower() == "true":
        args.append("--strict")
    return args + shlex.split(given.get("args", ""))


def listening(log: Path, child: subprocess.Popen[bytes]) -> str:
    """The origin of the server's first JSON start line, or exit showing its log."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("{") and '"url"' in line:
                url = str(json.loads(line)["url"])
                return url.split("/api/", 1)[0]
        if child.poll() is not None:
            sys.exit(f"zenmux-emulator exited (code {child.returncode}) before it listened:\n{log.read_text()}")
        time.sleep(0.1)
    sys.exit(f"zenmux-emulator did not listen within {START_TIMEOUT:.0f} s:\n{log.read_text()}")


def publish(origin: str, child: subprocess.Popen[bytes], log: Path) -> None:
    with urllib.request.urlopen(f"{origin}/_emulator/", timeout=30) as answer:
        faces = json.load(answer)["faces"]
    outputs = {"url": origin, "pid": str(child.pid), "log": str(log)}
    variables = {"ZENMUX_EMULATOR_URL": origin}
    for face in faces:
        outputs["base-url" if face["name"] == "chat" else f"{face['name']}-url"] = face["base_url"]
        variables[f"ZENMUX_{face['name'].upper()}_BASE_URL"] = face["base_url"]
    for file, values in ((os.environ.get("GITHUB_OUTPUT"), outputs), (os.environ.get("GITHUB_ENV"), variables)):
        if file:
            with open(file, "a", encoding="utf-8") as out:
                out.writelines(f"{k}={v}\n" for k, v in values.items())
    print(f"zenmux-emulator: {outputs['base-url']} (pid {child.pid}, log {log})")


def main() -> None:
    given = inputs()
    work = Path(tempfile.mkdtemp(prefix="zenmux-emulator-", dir=os.environ.get("RUNNER_TEMP")))
    argv = command(given, work) + serve_args(given, work)
    log = work / "emulator.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    with open(log, "wb") as out:  # the server outlives this step: the job's later steps talk to it
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    publish(listening(log, child), child, log)


if __name__ == "__main__":
    main()
