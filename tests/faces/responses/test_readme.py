"""The Responses guide's examples run as written against the shipped scenarios, and print what
their comments say."""

from __future__ import annotations

import contextlib
import io
import re

import openai

from tests.docs.pages import page
from tests.support.clients import API_KEY
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SECTION = page("guide/responses.md")
AGENTS_URL = "http://localhost:8000/api/v1"


def example(first_line: str) -> str:
    [block] = [b for b in re.findall(r"```python\n(.*?)```", SECTION, flags=re.DOTALL) if b.startswith(first_line)]
    return block


def expected(block: str) -> list[str]:
    """The `# …` comment of each printing line, in order."""
    return [line.split("#", 1)[1].strip() for line in block.splitlines() if "print(" in line and "#" in line]


def run(block: str, namespace: dict[str, object]) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/guide/responses.md", "exec"), namespace)
    return out.getvalue().splitlines()


def test_the_responses_example_prints_what_it_says(shipped: EmulatorServer, session: str):
    block = example("# Responses: text")
    with openai.OpenAI(
        base_url=shipped.base_url, api_key=API_KEY, max_retries=0, default_headers={"X-Emulator-Session": session}
    ) as client:
        assert run(block, {"client": client}) == expected(block)


def test_the_agents_example_prints_what_it_says(shipped: EmulatorServer):
    block = example("# The OpenAI Agents SDK")
    assert AGENTS_URL in block
    assert run(block.replace(AGENTS_URL, shipped.base_url), {"__name__": "readme"}) == expected(block)
