"""docs/guide/embeddings.md's examples run as written (against a test server instead of :8000):
the openai SDK's embeddings, LangChain's retriever offline, and rerank with curl."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from tests.docs import pages
from tests.support.shipped import compile_file
from zenmux_emulator.pytest_plugin.server import EmulatorServer

PAGE = pages.page("guide/embeddings.md")
DOCUMENTED_URL = "http://127.0.0.1:8000/api/v1"


def run(example: str, server: EmulatorServer) -> str:
    out, names = io.StringIO(), dict[str, Any]()
    with contextlib.redirect_stdout(out):
        exec(compile(example.replace(DOCUMENTED_URL, server.base_url), "docs/guide/embeddings.md", "exec"), names)
    for value in names.values():
        if isinstance(value, openai.OpenAI):
            value.close()
    return out.getvalue()


def python_block(needle: str) -> str:
    [example] = [b for b in pages.blocks(PAGE, "python") if needle in b]
    return example


def test_the_openai_example_prints_what_the_page_says(shipped: EmulatorServer) -> None:
    assert run(python_block("client.embeddings.create"), shipped) == "256 True 22\n"


def test_the_langchain_retriever_ranks_the_match_first_without_downloading_a_tokenizer(
    shipped: EmulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "tiktoken"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))  # an empty cache: an encoding would be downloaded here
    monkeypatch.setenv("NO_PROXY", "*")
    assert run(python_block("InMemoryVectorStore"), shipped) == "Paris is the capital of France.\n"
    assert os.listdir(cache) == []


def test_the_rerank_curl_example_ranks_the_capital_first(shipped: EmulatorServer) -> None:
    [example] = [b for b in pages.blocks(PAGE, "sh") if "/rerank" in b]
    assert shutil.which("curl"), "the rerank example uses curl"
    done = subprocess.run(
        ["bash", "-c", example.replace(DOCUMENTED_URL, shipped.base_url)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    body = json.loads(done.stdout)
    assert [result["index"] for result in body["results"]] == [0, 1]
    assert body["results"][0]["document"] == "Beijing is the capital of China."
    assert body["results"][0]["relevance_score"] > body["results"][1]["relevance_score"]


def test_the_pages_scenario_snippets_load() -> None:
    for i, block in enumerate(pages.blocks(PAGE, "yaml")):
        assert yaml.safe_load(block)["rules"]
        compile_file(block, f"embeddings-{i}.yaml")
