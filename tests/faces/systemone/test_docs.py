"""docs/guide/systemone.md's figures are what the server answers: its Python example (ZenMux's own,
with `requests`) run against the shipped scenarios prints the answer the page shows."""

from __future__ import annotations

import ast
import contextlib
import io
import json

from tests.docs import pages
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PAGE = pages.page("guide/systemone.md")


def test_the_python_example_prints_the_answer_the_page_shows(shipped: EmulatorServer) -> None:
    [example] = [block for block in pages.blocks(PAGE, "python") if "/systemone" in block]
    [shown] = [block for block in pages.blocks(PAGE, "text") if '"answers"' in block]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(
            compile(example.replace("127.0.0.1:8000", f"127.0.0.1:{shipped.port}"), "docs/guide/systemone.md", "exec"),
            {},
        )
    assert ast.literal_eval(out.getvalue()) == json.loads(shown)
