"""bench/floor.py is a fair reference only while it answers the benchmark's request as the emulator
does: same body but for the id and time, same headers. Prove it, so a change to either shows."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from gen_scenarios import PLAIN_PROMPT, write_scenarios  # noqa: E402

BODY = {"model": "openai/gpt-5", "messages": [{"role": "user", "content": PLAIN_PROMPT}]}
HEADERS = {"Authorization": "Bearer sk-bench"}
PER_REQUEST = ("id", "created")
PER_REQUEST_HEADERS = {"x-generation-id", "x-zenmux-requestid", "x-request-id", "date"}


@pytest.fixture(scope="module")
def floor_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(BENCH / "floor.py"), "--port", "0"],
        cwd=BENCH,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"listening on (http://\S+)", line)
        assert found, f"floor.py did not start: {line}"
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture(scope="module")
def emulator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = write_scenarios(tmp_path_factory.mktemp("bench") / "rules", 10)
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], watch=False)) as server:
        yield server.base_url


def post(base_url: str, body: dict[str, object]) -> Raw:
    return http(
        f"{base_url}/chat/completions",
        json.dumps(body).encode(),
        method="POST",
        headers={**HEADERS, "Content-Type": "application/json"},
    )


def answer(base_url: str) -> Raw:
    response = post(base_url, BODY)
    assert response.status == 200, response.text
    return response


def test_the_floor_sends_the_emulators_body_but_for_id_and_time(floor_url: str, emulator_url: str) -> None:
    floor, emulator = answer(floor_url).json(), answer(emulator_url).json()
    assert {k: v for k, v in floor.items() if k not in PER_REQUEST} == {
        k: v for k, v in emulator.items() if k not in PER_REQUEST
    }
    assert re.fullmatch(r"[0-9a-f]{32}", floor["id"])


def test_the_floor_sends_the_emulators_headers(floor_url: str, emulator_url: str) -> None:
    floor, emulator = answer(floor_url).headers, answer(emulator_url).headers
    assert set(floor) == set(emulator)
    assert {k: v for k, v in floor.items() if k not in PER_REQUEST_HEADERS} == {
        k: v for k, v in emulator.items() if k not in PER_REQUEST_HEADERS
    }


@pytest.mark.parametrize(
    "field",
    [
        {"temperature": -1},  # ZenMux's own check
        {"max_completion_tokens": 0},  # the pydantic model's
        {"messages": [{"role": "tool", "tool_call_id": "call_1", "content": "42"}]},  # tool-call pairing
    ],
)
def test_the_floor_validates_as_the_emulator_does(floor_url: str, emulator_url: str, field: dict[str, object]) -> None:
    assert post(emulator_url, {**BODY, **field}).status == 400
    assert post(floor_url, {**BODY, **field}).status == 500  # no error envelope there: rejected, not answered
