"""The bench's rate loads from wrk (bench/wrk.py): its report read from the Lua hook's line, a short
run against a real emulator counting answers and failing none, a wrong path counted as failures,
and a streamed answer's events counted as the emulator sends them (role, 50 words, finish)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zenmux_emulator.pytest_plugin.server import EmulatorServer

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import wrk  # noqa: E402
from gen_scenarios import PLAIN_PROMPT, STREAM_PROMPT, WORDS  # noqa: E402


def test_the_report_line_is_read_as_rates() -> None:
    out = (
        "Running 1s test @ http://127.0.0.1:1/api/v1/chat/completions\n"
        'WRK {"requests": 500, "duration_us": 2000000, "bytes": 1, "connect": 0, "read": 1, "write": 0, '
        '"status": 2, "timeout": 0, "p50_us": 1500, "p99_us": 9000}\n'
    )
    result = wrk.parse(out)
    assert result["requests"] == 500
    assert result["rps"] == 250.0
    assert result["failures"] == 3
    assert (result["p50_ms"], result["p99_ms"]) == (1.5, 9.0)


def test_no_report_line_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="no report"):
        wrk.parse("wrk: unable to connect\n")


@pytest.mark.parametrize(("prompt", "stream"), [(PLAIN_PROMPT, False), (STREAM_PROMPT, True)])
def test_a_short_run_counts_answers_and_fails_none(
    bench_server: EmulatorServer, tmp_path: Path, prompt: str, stream: bool
) -> None:
    script = wrk.write_script(tmp_path, prompt, stream)
    result = wrk.run(f"{bench_server.base_url}/chat/completions", script, 2, 1, None)
    assert result["failures"] == 0, result["wrk"]
    assert result["requests"] > 0
    assert result["load_cpu_share"] is not None


def test_a_wrong_path_is_counted_as_failures(bench_server: EmulatorServer, tmp_path: Path) -> None:
    script = wrk.write_script(tmp_path, PLAIN_PROMPT, False)
    result = wrk.run(f"{bench_server.base_url}/nothing-here", script, 1, 1, None)
    assert result["requests"] > 0
    assert result["failures"] == result["requests"]


def test_a_streamed_answers_events_are_counted(bench_server: EmulatorServer) -> None:
    events = wrk.events_per_answer(f"{bench_server.base_url}/chat/completions", STREAM_PROMPT)
    assert events == len(WORDS) + 2  # the role chunk, one per word, the finish chunk
