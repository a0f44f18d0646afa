"""aimock is a fair peer in `make bench` only while it answers the benchmark's requests with the
benchmark's reply. Install it as the bench does (pinned, from npm), start it as the bench does,
and check what it sends; check its fixture with aimock's own validator."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.clients import http

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import aimock  # noqa: E402
from gen_scenarios import CONTENT, PLAIN_PROMPT, STREAM_PROMPT  # noqa: E402
from servers import LISTEN, Server  # noqa: E402

HEADERS = {"Authorization": "Bearer sk-bench", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def fixture_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    aimock.install()
    return aimock.write_fixture(tmp_path_factory.mktemp("aimock"))


@pytest.fixture(scope="module")
def aimock_url(fixture_path: Path) -> Iterator[str]:
    server = Server("aimock", aimock.argv(fixture_path), None, PLAIN_PROMPT)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def post(url: str, prompt: str, stream: bool) -> str:
    body = {"model": "openai/gpt-5", "messages": [{"role": "user", "content": prompt}], "stream": stream}
    answer = http(f"{url}/chat/completions", json.dumps(body).encode(), method="POST", headers=HEADERS)
    assert answer.status == 200, answer.text
    return answer.text


def test_the_pinned_version_is_installed(fixture_path: Path) -> None:
    assert aimock.installed_version() == aimock.VERSION
    assert aimock.cli().is_file()


def test_the_fixture_is_one_catch_all_of_the_benchmarks_reply(fixture_path: Path) -> None:
    written = json.loads(fixture_path.read_text(encoding="utf-8"))
    assert written == {"fixtures": [{"match": {}, "response": {"content": CONTENT}}]}


def test_aimocks_own_validator_accepts_the_fixture(fixture_path: Path) -> None:
    validator = aimock.package_dir() / "dist" / "aimock-cli.js"
    done = subprocess.run(
        ["node", str(validator), "validate", "--strict", "--json", str(fixture_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] is False
    assert report["files"][0]["fixtures"] == 1


def test_a_non_streamed_answer_carries_the_benchmarks_reply(aimock_url: str) -> None:
    completion = json.loads(post(aimock_url, PLAIN_PROMPT, stream=False))
    assert completion["object"] == "chat.completion"
    assert completion["choices"][0]["message"]["content"] == CONTENT
    assert completion["choices"][0]["finish_reason"] == "stop"


def test_a_stream_carries_the_reply_in_the_announced_number_of_chunks(aimock_url: str) -> None:
    events = [
        line.removeprefix("data: ")
        for line in post(aimock_url, STREAM_PROMPT, stream=True).split("\n\n")
        if line.startswith("data: ")
    ]
    assert events[-1] == "[DONE]"
    deltas = [choice["delta"].get("content") for e in events[:-1] for choice in json.loads(e)["choices"]]
    pieces = [d for d in deltas if d]
    assert "".join(pieces) == CONTENT
    assert len(pieces) == aimock.stream_chunks()


def test_the_listening_line_is_read_only_when_whole() -> None:
    line = "[aimock] aimock server listening on http://127.0.0.1:42683\n"
    found = LISTEN.search(line)
    assert found is not None and found.group(2) == "42683"
    assert LISTEN.search(line[:-2]) is None  # the port's last digit not there yet
    emulator = LISTEN.search("ZenMux emulator listening on http://127.0.0.1:8000/api/v1\n")
    assert emulator is not None and emulator.group(1) == "http://127.0.0.1:8000"
