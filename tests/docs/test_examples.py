"""Every code example of the documentation and the README runs (issue 30).

Each fenced block of every page is one of:
- output (`text`, or no language): not code;
- marked `<!-- example: run by tests/… -->` on the line before it: that test runs it as written (it must exist and
  read this page), usually because it needs a tool of its own (Claude Code, Codex, a new virtualenv, pytester);
- marked `<!-- example: not run (why) -->`: it cannot run here, and the page's text says so (Docker, a real upstream,
  third-party clients that are not dependencies of the suite);
- otherwise run here, against a server of the shipped scenarios in place of 127.0.0.1:8000: Python blocks in page
  order in one namespace (a page continues its earlier blocks; `client` is the openai client of "A first
  request"), shell blocks with bash (curl failing on a 4xx or 5xx), YAML scenarios loaded as a scenario file
  must load, other YAML parsed.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import textwrap
import urllib.request
from pathlib import Path

import anthropic
import openai
import pytest
import yaml

from tests.conftest import REPO
from tests.docs.pages import Block, code_blocks, pages
from tests.support.shipped import load_paths
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PAGES = pages()
DOCUMENTED = re.compile(r"(?:127\.0\.0\.1|localhost):8000")
SCENARIO_KEYS = {"settings", "models", "query_models", "rules"}


def page_id(path: Path) -> str:
    return str(path.relative_to(REPO))


def here(server: EmulatorServer, text: str) -> str:
    return DOCUMENTED.sub(f"127.0.0.1:{server.port}", text)


def to_run(path: Path, language: str) -> list[Block]:
    return [b for b in code_blocks(path.read_text(encoding="utf-8")) if b.language == language and b.marker is None]


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_block_is_run_here_or_names_what_runs_it(path: Path):
    for block in code_blocks(path.read_text(encoding="utf-8")):
        where = f"{page_id(path)}:{block.line}"
        if block.marker is None:
            assert block.language in {"", "text", "python", "sh", "yaml"}, (
                f"{where}: a {block.language} block "
                "nothing runs: mark it with the test that runs it, or why it is not run"
            )
        elif block.marker.startswith("run by "):
            test = REPO / block.marker.removeprefix("run by ")
            assert test.is_file(), f"{where}: {test} does not exist"
            assert path.name in test.read_text(encoding="utf-8"), f"{where}: {test.name} does not read {path.name}"
        else:
            assert re.fullmatch(r"not run \(.+\)", block.marker), f"{where}: unknown marker {block.marker!r}"


@pytest.mark.parametrize("path", [p for p in PAGES if to_run(p, "python")], ids=page_id)
def test_the_python_examples_run(path: Path, shipped: EmulatorServer):
    out = io.StringIO()
    with openai.OpenAI(base_url=shipped.base_url, api_key="sk-anything", max_retries=0) as client:
        namespace: dict[str, object] = {"__name__": "docs_example", "client": client}
        with contextlib.redirect_stdout(out):
            for block in to_run(path, "python"):
                code = "\n" * (block.line - 1) + here(shipped, block.text)  # tracebacks name the page's lines
                exec(compile(code, str(path), "exec"), namespace)
        for value in namespace.values():  # an example may leave its client open, as a script may
            if isinstance(value, (openai.OpenAI, anthropic.Anthropic)) and value is not client:
                value.close()


def journal_lines(server: EmulatorServer) -> str:
    with urllib.request.urlopen(f"{server.origin}/_emulator/journal", timeout=30) as response:
        entries = json.loads(response.read())["entries"]
    return "".join(json.dumps(entry) + "\n" for entry in entries)


def a_generation_id(server: EmulatorServer) -> str:
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-anything", max_retries=0)
    with client:
        return client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}]).id


@pytest.mark.parametrize("path", [p for p in PAGES if to_run(p, "sh")], ids=page_id)
def test_the_shell_examples_run(path: Path, shipped: EmulatorServer, tmp_path: Path):
    assert shutil.which("curl") and shutil.which("jq"), "the examples use curl and jq"
    env = {
        "PATH": str(Path(shutil.which("curl") or "").parent) + ":/usr/bin:/bin",
        "GENERATION_ID": a_generation_id(shipped),
    }
    (tmp_path / "journal.jsonl").write_text(journal_lines(shipped), encoding="utf-8")  # the journal file's recipes
    for block in to_run(path, "sh"):
        command = here(shipped, block.text).replace("curl -s ", "curl -sS --fail-with-body ")
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"{page_id(path)}:{block.line}\n{command}\n{done.stdout}{done.stderr}"
        assert done.stdout.strip(), f"{page_id(path)}:{block.line} printed nothing"


def scenario_text(text: str) -> str | None:
    """The block as a scenario file, or None when it is another YAML (a CI workflow, a compose file)."""
    if text.lstrip().startswith("- name:"):  # a rule out of a file's `rules:`
        return "rules:\n" + textwrap.indent(text, "  ")
    data = yaml.safe_load(text)
    return text if isinstance(data, dict) and set(data) <= SCENARIO_KEYS else None


@pytest.mark.parametrize("path", [p for p in PAGES if to_run(p, "yaml")], ids=page_id)
def test_the_yaml_examples_load(path: Path, tmp_path: Path):
    for block in to_run(path, "yaml"):
        scenario = scenario_text(block.text)
        if scenario is None:
            continue
        file = tmp_path / f"{path.stem}-{block.line}.yaml"
        file.write_text(scenario, encoding="utf-8")
        loaded = load_paths([file])  # raises, with the file's line, when the example does not load
        assert loaded.rules or loaded.catalogue, f"{page_id(path)}:{block.line} loads nothing"
