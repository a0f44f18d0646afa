"""The first-request examples of docs/getting-started.md run as written (against a test server instead of :8000)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess

import openai

from tests.docs import pages
from tests.docs.pages import page
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PAGE = page("getting-started.md")
DOCUMENTED_URL = "http://127.0.0.1:8000/api/v1"


def blocks(language: str) -> list[str]:
    return pages.blocks(PAGE, language)


def test_the_python_example_prints_what_the_page_says(shipped: EmulatorServer) -> None:
    [example] = [b for b in blocks("python") if DOCUMENTED_URL in b]
    out, names = io.StringIO(), dict[str, object]()
    with contextlib.redirect_stdout(out):
        exec(compile(example.replace(DOCUMENTED_URL, shipped.base_url), "docs/getting-started.md", "exec"), names)
    for value in names.values():  # the example leaves its client open, as a script may; a test closes it
        if isinstance(value, openai.OpenAI):
            value.close()
    greeting, streamed = out.getvalue().split("\n", 1)
    assert greeting == "Hi hello there! How can I help?"
    assert streamed == "one two three four five"


def test_the_curl_example_answers_as_shown(shipped: EmulatorServer) -> None:
    [example] = [b for b in blocks("sh") if b.startswith(f"curl -s {DOCUMENTED_URL}/chat/completions")]
    assert shutil.which("curl"), "the first request uses curl"
    done = subprocess.run(
        ["bash", "-c", example.replace(DOCUMENTED_URL, shipped.base_url)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    body = json.loads(done.stdout)
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["content"] == "Hi hello there! How can I help?"
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
