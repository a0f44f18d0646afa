"""`zenmux-emulator drift --recorded DIR`: exchanges recorded (by `record`) from a stand-in
ZenMux are compared with what the emulator answers to the same requests now: no key, no upstream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from tests.cli.drift.standin import StandIn
from tests.cli.test_cli import CONSOLE_SCRIPT, clean_env, run
from tests.conftest import MakeServer
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.command import record_settings
from zenmux_emulator.record.exchanges import FILENAME
from zenmux_emulator.settings import Settings

KEY = "sk-ai-v1-recorded-secret-0123456789abcdef"
EXPECTED = {
    ("chat", "added", "$.zenmux_route"),
    ("chat", "missing", "$.usage.total_tokens"),
    ("chat", "retyped", "$.created"),
    ("chat", "missing", "header:x-generation-id"),
    ("anthropic", "stream-order", "events"),
}


def record_from(upstream: StandIn, out: Path) -> None:
    """`record --upstream … --out OUT`'s settings: a plain chat call and a streamed Anthropic one."""
    with EmulatorServer(
        Settings(**record_settings({"out": str(out), "upstream": upstream.origin, "port": 0}))
    ) as proxy:
        with openai.OpenAI(base_url=proxy.base_url, api_key=KEY, max_retries=0) as client:
            client.chat.completions.create(
                model="openai/gpt-5.4-nano", messages=[{"role": "user", "content": "Say hello in three words."}]
            )
        with anthropic.Anthropic(base_url=proxy.anthropic_url, api_key=KEY, max_retries=0) as claude:
            with claude.messages.stream(
                model="anthropic/claude-haiku-4.5", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
            ) as stream:
                stream.until_done()


@pytest.fixture
def standin(make_server: MakeServer, request: pytest.FixtureRequest) -> Iterator[StandIn]:
    server = StandIn(make_server().origin, KEY, changed=request.param).start()
    try:
        yield server
    finally:
        server.stop()


def drift_recorded(folder: Path, tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    report = tmp_path / "report.json"
    done = run([str(CONSOLE_SCRIPT), "drift", "--recorded", str(folder), "--report", str(report)], env=clean_env())
    assert report.exists(), done.stderr
    return done, json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("standin", [True], indirect=True)
def test_a_field_the_upstream_changed_since_is_named(standin: StandIn, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    record_from(standin, out)
    written = (out / FILENAME).read_text(encoding="utf-8")
    assert len(written.splitlines()) == 2 and KEY not in written
    done, report = drift_recorded(out, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert {(d["face"], d["kind"], d["path"]) for d in report["differences"]} == EXPECTED
    assert "$.zenmux_route" in done.stdout
    assert KEY not in done.stdout + done.stderr + json.dumps(report)


@pytest.mark.parametrize("standin", [False], indirect=True)
def test_a_recording_of_an_upstream_like_the_emulator_has_no_drift(standin: StandIn, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    record_from(standin, out)
    done, report = drift_recorded(out, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["differences"] == [] and len(report["probes"]) == 2


def test_a_folder_without_exchanges_is_a_usage_problem(tmp_path: Path) -> None:
    done = run([str(CONSOLE_SCRIPT), "drift", "--recorded", str(tmp_path)], env=clean_env())
    assert done.returncode == 2 and FILENAME in done.stderr and "record --out" in done.stderr
