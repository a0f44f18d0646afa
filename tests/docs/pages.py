"""The documentation's pages and their code blocks, as the tests that run them read them."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

DOCS = REPO / "docs"
# a fence may be indented (a block inside a list item); the line before it may say how the block is tested
FENCE = re.compile(
    r"(?:^<!-- example: (?P<marker>.*?) -->\n)?^(?P<indent> *)```(?P<language>\w*)\n(?P<body>.*?)^(?P=indent)```$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, its text (dedented), its first line's number, and the
    `<!-- example: … -->` marker on the line before it, if any."""

    language: str
    text: str
    line: int
    marker: str | None


def page(path: str) -> str:
    """The text of a page under docs/ (`guide/anthropic.md`), or of the README (`README.md`)."""
    where = REPO / path if path == "README.md" else DOCS / path
    return where.read_text(encoding="utf-8")


def code_blocks(text: str) -> list[Block]:
    """Every fenced block of `text`, in order."""
    return [
        Block(m["language"], textwrap.dedent(m["body"]), text.count("\n", 0, m.start("body")) + 1, m["marker"])
        for m in FENCE.finditer(text)
    ]


def blocks(text: str, language: str) -> list[str]:
    """The code blocks of `text` in `language` (`sh`, `python`, …), in order."""
    return [block.text for block in code_blocks(text) if block.language == language]


def pages() -> list[Path]:
    """Every page of the site, and the README."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]
