"""The documentation site builds from docs/ with no warning (a broken link or anchor, a page left out of the
navigation), its generated references name what the code has, and the README stays short with every link
resolving (issue 30)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs.pages import DOCS, page
from tools.docs_hooks import GENERATORS
from zenmux_emulator.cli.main import serve_parser
from zenmux_emulator.scenario.schema import Rule

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's notice of its successor, not a build warning
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(where)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert "WARNING" not in built.stdout + built.stderr, built.stdout + built.stderr
    return where


def test_every_page_is_built(site: Path):
    for source in DOCS.rglob("*.md"):
        relative = source.relative_to(DOCS).with_suffix("")
        built = site / ("index.html" if relative.name == "index" else relative / "index.html")
        assert built.is_file(), f"{source} was not built"


def test_the_option_reference_names_every_option_of_serve(site: Path):
    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    options = [max(a.option_strings, key=len) for a in serve_parser()._actions if a.option_strings]
    assert len(options) > 20
    for option in options:
        if option != "--help":
            assert option in html, option
    assert "<!-- generated" not in html


def test_the_schema_reference_names_every_key_of_a_rule(site: Path):
    html = (site / "reference" / "scenario-schema" / "index.html").read_text(encoding="utf-8")
    for key in Rule.model_fields:
        assert f"<code>{key}</code>" in html, key


def test_the_schema_reference_names_each_faces_reply_keys_with_its_face():
    rows = GENERATORS["scenario-schema"]().split("### Reply\n", 1)[1].split("\n### ", 1)[0].splitlines()
    assert rows[1].startswith("One scripted answer."), rows[:3]
    for key, face in (
        ("query", "objectiveai"),
        ("vectors", "embeddings"),
        ("scores", "rerank"),
        ("answers", "systemone"),
    ):
        [row] = [row for row in rows if row.startswith(f"| `{key}` |")]
        assert row.split(" | ")[-1].startswith(f"{face}: "), row


def test_every_generated_reference_is_used():
    used = set(re.findall(r"<!-- generated: ([a-z-]+) -->", "".join(p.read_text() for p in DOCS.rglob("*.md"))))
    assert used == set(GENERATORS)


def test_the_readme_is_short_and_its_links_resolve():
    readme = page("README.md")
    assert len(readme.splitlines()) < 250
    links = LINK.findall(readme)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        target, _, anchor = link.partition("#")
        assert (REPO / target).exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", (REPO / target).read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", h.lower())).strip("-") for h in headings}
            assert anchor in slugs, link
