"""The benchmark's load generator parses HTTP by hand: prove it reads the emulator's real
answers right, however the bytes are split, and that a short run against a server counts
answers and fails none."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from zenmux_emulator.pytest_plugin.server import EmulatorServer

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from gen_scenarios import PLAIN_PROMPT, STREAM_PROMPT, WORDS  # noqa: E402
from load import Answer, Connection, judge, request_bytes  # noqa: E402


def raw_answer(server: EmulatorServer, prompt: str, stream: bool) -> bytes:
    """The exact bytes the server sends for one request on a fresh connection."""
    body = json.dumps(
        {"model": "openai/gpt-5", "messages": [{"role": "user", "content": prompt}], "stream": stream}
    ).encode()
    host, port, request = request_bytes(f"{server.base_url}/chat/completions", body)
    received = b""
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(request)
        while not (received.endswith(b"\r\n0\r\n\r\n") or _complete_plain(received)):
            data = sock.recv(65536)
            assert data, "the server closed the connection early"
            received += data
    return received


def _complete_plain(received: bytes) -> bool:
    head, sep, body = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return bool(sep) and len(body) >= int(line.split(b":")[1])
    return False


def feed(raw: bytes, cut: int | None, streamed: bool) -> Answer:
    """Give the bytes to a Connection in pieces of `cut` bytes (None: all at once)."""
    loop = asyncio.new_event_loop()
    try:
        conn = Connection(streamed)
        conn.waiter = loop.create_future()  # what send() sets, without a transport
        step = cut or len(raw)
        for i in range(0, len(raw), step):
            assert not conn.waiter.done(), "the answer completed before its last byte"
            conn.data_received(raw[i : i + step])
        assert conn.waiter.done(), "the answer never completed"
        return conn.waiter.result()
    finally:
        loop.close()


@pytest.mark.parametrize("cut", [None, 1, 7, 64, 1000])
def test_a_stream_is_counted_event_by_event_however_it_is_split(bench_server: EmulatorServer, cut: int | None) -> None:
    raw = raw_answer(bench_server, STREAM_PROMPT, stream=True)
    events = raw.partition(b"\r\n\r\n")[2].count(b"data: ")
    answer = feed(raw, cut, streamed=True)
    assert answer.status == 200
    # role chunk + one chunk per word + finish chunk + [DONE]
    assert len(answer.stamps) == events == len(WORDS) + 3
    assert judge(answer, streamed=True)


@pytest.mark.parametrize("cut", [None, 1, 13, 300])
def test_a_plain_answer_is_read_whole_however_it_is_split(bench_server: EmulatorServer, cut: int | None) -> None:
    raw = raw_answer(bench_server, PLAIN_PROMPT, stream=False)
    answer = feed(raw, cut, streamed=False)
    assert answer.status == 200
    assert json.loads(bytes(answer.body))["choices"][0]["message"]["content"] == " ".join(WORDS)
    assert judge(answer, streamed=False)


@pytest.mark.parametrize(("mode", "prompt"), [("plain", PLAIN_PROMPT), ("stream", STREAM_PROMPT)])
def test_a_short_run_counts_answers_and_fails_none(bench_server: EmulatorServer, mode: str, prompt: str) -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "load.py"),
            "--url",
            f"{bench_server.base_url}/chat/completions",
            "--mode",
            mode,
            "--prompt",
            prompt,
            "--concurrency",
            "4",
            "--duration",
            "0.5",
            "--warmup",
            "0.1",
        ],
        capture_output=True,
        check=True,
        timeout=60,
    )
    result = json.loads(out.stdout)
    assert result["failures"] == 0, result["errors"]
    assert result["requests"] > 0
    assert result["load_cpu_share"] is not None
    if mode == "stream":
        assert result["chunks"] > 0
    else:
        assert result["chunks"] == 0


def test_a_wrong_answer_is_a_failure(bench_server: EmulatorServer) -> None:
    """A path the server does not serve answers 404: a failure, never a counted request."""
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "load.py"),
            "--url",
            f"{bench_server.base_url}/nothing-here",
            "--mode",
            "plain",
            "--concurrency",
            "1",
            "--duration",
            "0.3",
            "--warmup",
            "0",
        ],
        capture_output=True,
        check=True,
        timeout=60,
    )
    result = json.loads(out.stdout)
    assert result["requests"] == 0
    assert result["failures"] > 0
