"""The plugin guide's example (a scenario and a test file) and helpers to write it for pytester."""

from __future__ import annotations

import re

import pytest

from tests.docs.pages import page

GUIDE = page("guide/pytest-plugin.md")
SCENARIO = "tests/scenarios/weather.yaml"
EXAMPLE = "tests/test_weather_agent.py"
INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"


def readme_file(path: str) -> str:
    """The guide's code block whose first line is `# <path>`."""
    [block] = [b for b in re.findall(r"```\w+\n(.*?)```", GUIDE, flags=re.DOTALL) if b.startswith(f"# {path}\n")]
    return block


def rule_line(name: str) -> int:
    """The line of the guide's scenario on which rule `name` is declared."""
    lines = readme_file(SCENARIO).splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip() == f"- name: {name}")


def write_example(pytester: pytest.Pytester, **more: str) -> None:
    """The guide's scenario and test file, an ini, and any further files (`path=text`, relative)."""
    pytester.makeini(INI)
    for path, text in {SCENARIO: readme_file(SCENARIO), EXAMPLE: readme_file(EXAMPLE), **more}.items():
        target = pytester.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


AGENT = '''
import json

import openai
import pytest

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}

SEQUENCE = """
rules:
  - name: counter
    match: {last_user: {contains: count}}
    replies:
      - {content: one}
      - {content: two}
"""


def ask(client, text, **options):
    return client.chat.completions.create(
        model="openai/gpt-5", messages=[{"role": "user", "content": text}], **options)
'''
