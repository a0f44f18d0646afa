"""The GitHub Action (`action.yml`, issue 41 item 2): a composite action whose start step hands every input to
deploy/github-action/start.py, which starts the emulator in the background and exports its base URLs; and the
README's workflow for a Node project, whose `with:` the action takes, run here as the action runs it (the
emulator already installed: `command` is this venv's, so nothing is downloaded)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
import yaml

from tests.conftest import REPO
from tests.docs.pages import code_blocks
from tests.support.polling import wait_for

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
SCRIPT = REPO / "deploy/github-action/start.py"
README = REPO / "README.md"
RULE = "rules:\n  - name: greet\n    match: {last_user: hello}\n    reply: {content: Hi from CI}\n"


def readme_workflow() -> dict[str, Any]:
    [block] = [
        b for b in code_blocks(README.read_text(encoding="utf-8")) if "tests/clients/test_action.py" in (b.marker or "")
    ]
    workflow: dict[str, Any] = yaml.safe_load(block.text)
    return workflow


def start(
    with_: dict[str, str], tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], dict[str, str]]:
    """Run the action's start step as the runner does: its inputs as INPUT_*, GITHUB_OUTPUT and GITHUB_ENV files."""
    given = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    given.update(with_)
    outputs, exported = tmp_path / "outputs", tmp_path / "env"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "ZENMUX_EMULATOR_"))}
    env.update({f"INPUT_{k.upper()}": v for k, v in given.items()})
    env.update(GITHUB_OUTPUT=str(outputs), GITHUB_ENV=str(exported), RUNNER_TEMP=str(tmp_path), PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )

    def read(file: Path) -> dict[str, str]:
        lines = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
        return dict(line.split("=", 1) for line in lines)

    return done, read(outputs), read(exported)


def stop(pid: int) -> None:
    os.kill(pid, signal.SIGTERM)  # the server the step left running, by its own pid

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    assert wait_for(gone, timeout=30)


def test_the_action_is_composite_and_hands_every_input_to_its_start_step() -> None:
    assert ACTION["runs"]["using"] == "composite"
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "start"]
    assert "deploy/github-action/start.py" in step["run"]
    passed = {k.removeprefix("INPUT_").lower().replace("_", "-") for k in step["env"]}
    assert passed == set(ACTION["inputs"]) - {"python-version"}
    for name, output in ACTION["outputs"].items():
        assert output["value"] == f"${{{{ steps.start.outputs.{name} }}}}", name


def test_the_readmes_workflow_starts_the_emulator_and_exports_its_urls(tmp_path: Path) -> None:
    steps = readme_workflow()["jobs"]["test"]["steps"]
    [action] = [s for s in steps if str(s.get("uses", "")).endswith("/zenmux-emulator")]
    assert set(action["with"]) <= set(ACTION["inputs"]), "the example gives only inputs the action has"
    for later in steps[steps.index(action) + 1 :]:  # outputs the example reads are outputs the action sets
        for value in later.get("env", {}).values():
            name = value.removeprefix(f"${{{{ steps.{action['id']}.outputs.").removesuffix(" }}")
            assert name in ACTION["outputs"], value
    (tmp_path / action["with"]["scenarios"]).mkdir(parents=True)
    (tmp_path / action["with"]["scenarios"] / "greet.yaml").write_text(RULE, encoding="utf-8")
    done, outputs, exported = start({**action["with"], "command": f"{sys.executable} -m zenmux_emulator"}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    pid = int(outputs["pid"])
    try:
        assert exported["ZENMUX_EMULATOR_URL"] == outputs["url"] and outputs["base-url"] == outputs["url"] + "/api/v1"
        assert exported["ZENMUX_ANTHROPIC_BASE_URL"] == outputs["anthropic-url"] == outputs["url"] + "/api/anthropic"
        assert outputs["vertex-url"].endswith("/api/vertex-ai") and outputs["objectiveai-url"].endswith("/objectiveai")
        with openai.OpenAI(base_url=outputs["base-url"], api_key="sk-ci", max_retries=0) as client:
            chat = client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": "hello"}])
        assert chat.choices[0].message.content == "Hi from CI"
        with anthropic.Anthropic(base_url=outputs["anthropic-url"], api_key="sk-ci", max_retries=0) as claude:
            message = claude.messages.create(
                model="anthropic/claude-sonnet-4.5", max_tokens=50, messages=[{"role": "user", "content": "hello"}]
            )
        assert message.content[0].type == "text" and message.content[0].text == "Hi from CI"
    finally:
        stop(pid)
    assert "listening on" in Path(outputs["log"]).read_text(encoding="utf-8")


def test_the_start_step_fails_showing_the_log_when_the_server_cannot_start(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(RULE.replace("match", "mtach"), encoding="utf-8")
    command = f"{sys.executable} -m zenmux_emulator"
    done, outputs, _ = start({"scenarios": str(tmp_path / "bad.yaml"), "command": command}, tmp_path)
    assert done.returncode == 1 and outputs == {}
    assert "exited (code 1) before it listened" in done.stderr and "did you mean 'match'?" in done.stderr, done.stderr


@pytest.mark.parametrize("strict", ["true", "false"])
def test_the_start_steps_inputs_become_serve_options(tmp_path: Path, strict: str) -> None:
    command = f"{sys.executable} -m zenmux_emulator"
    done, outputs, _ = start({"command": command, "strict": strict, "seed": "7"}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    try:
        with openai.OpenAI(base_url=outputs["base-url"], api_key="sk-ci", max_retries=0) as client:
            if strict == "true":
                with pytest.raises(openai.NotFoundError, match="No rule matched this request"):
                    client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}])
            else:
                chat = client.chat.completions.create(
                    model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}]
                )
                assert chat.choices[0].message.content
    finally:
        stop(int(outputs["pid"]))
