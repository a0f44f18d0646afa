"""`--time-scale F`, the `X-Emulator-Time-Scale` header and the scenarios' `settings.time_scale`
(issue 37 item 4): every wait the emulator makes is multiplied by F, 0 sends a paced stream at once,
and the journal's timeline keeps the scripted offsets. The time bounds are the issue's own checks,
with generous margins: a lower bound where the waits must happen, an upper bound where they must not."""

from __future__ import annotations

import itertools
import time
from typing import Any

import httpx
import pytest

from tests.conftest import API_KEY, MakeServer
from tests.support.clients import http
from tests.support.sse import parse_sse
from zenmux_emulator.core.gateway.control_headers import TIME_SCALE_HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

WORDS = " ".join(f"w{i}" for i in range(20))
PACED = f"""
rules:
  - name: paced
    match: {{last_user: {{contains: paced}}}}
    reply:
      content: "{WORDS}"
      stream: {{chunk_ms: 100, chunk_tokens: 1}}
  - name: slow-start
    match: {{last_user: {{contains: slow start}}}}
    reply:
      content: "late"
      stream: {{first_token_ms: 1200}}
  - name: plain
    match: {{}}
    reply: {{content: "fine"}}
"""
SCRIPTED_S = 2.0  # 20 content chunks 100 ms apart (and the role chunk's gap): about 2 s


def chat(prompt: str, stream: bool = True) -> dict[str, Any]:
    return {"model": "openai/gpt-5", "messages": [{"role": "user", "content": prompt}], "stream": stream}


def streamed(
    server: EmulatorServer, session: str, headers: dict[str, str] | None = None, prompt: str = "paced"
) -> tuple[float, bytes]:
    """The wall seconds a whole stream took to arrive, and its bytes."""
    sent = {"Authorization": f"Bearer {API_KEY}", SESSION_HEADER: session, **(headers or {})}
    began = time.monotonic()
    with httpx.stream("POST", f"{server.base_url}/chat/completions", json=chat(prompt), headers=sent, timeout=30) as r:
        assert r.status_code == 200, r.read()
        body = r.read()
    return time.monotonic() - began, body


def last_entry(server: EmulatorServer, session: str) -> dict[str, Any]:
    entries = http(f"{server.origin}/_emulator/journal?session={session}").json()["entries"]
    return entries[-1]


def content(body: bytes) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in parse_sse(body).chunks if c["choices"])


def assert_scripted_timeline(entry: dict[str, Any], skipped: bool = True) -> None:
    """The stream's 2 s in its journal timeline; when the waits were skipped, each chunk exactly its
    scripted 100 ms after the one before (waited, the loop's own lateness shows too)."""
    offsets = entry["event_offsets_ms"]
    assert len(offsets) == entry["events_sent"] > 20
    assert offsets == sorted(offsets)
    assert offsets[-1] >= SCRIPTED_S * 1000 * 0.95, offsets  # the scripted 2 s, not the wall time it took
    if skipped:
        gaps = [b - a for a, b in itertools.pairwise(offsets[1:22])]
        assert all(gap >= 99 for gap in gaps), gaps


def test_scale_0_sends_a_paced_stream_at_once_and_the_journal_keeps_its_timeline(make_server: MakeServer):
    server = make_server(PACED, time_scale=0)
    took, body = streamed(server, "zero")
    assert took < 0.5, f"a 2 s stream took {took:.2f}s at scale 0"
    assert content(body) == WORDS
    assert parse_sse(body).done
    assert_scripted_timeline(last_entry(server, "zero"))


def test_scale_1_waits_as_scripted_and_sends_the_same_bytes(make_server: MakeServer):
    fast, slow = make_server(PACED, time_scale=0), make_server(PACED, time_scale=1)
    took, body = streamed(slow, "one")
    assert took >= 1.5, f"a 2 s stream took {took:.2f}s at scale 1"
    _, at_once = streamed(fast, "one")
    assert at_once == body  # same scenario, request and seed: the same bytes at any scale
    assert_scripted_timeline(last_entry(slow, "one"), skipped=False)


def test_the_header_sets_one_request_s_scale(make_server: MakeServer):
    server = make_server(PACED)  # scale 1 by default
    took, body = streamed(server, "header", {TIME_SCALE_HEADER: "0"})
    assert took < 0.5, f"a 2 s stream took {took:.2f}s with {TIME_SCALE_HEADER}: 0"
    assert content(body) == WORDS
    assert_scripted_timeline(last_entry(server, "header"))


def test_the_header_comes_before_the_command_line(make_server: MakeServer):
    server = make_server(PACED, time_scale=0)
    took, _ = streamed(server, "header-first", {TIME_SCALE_HEADER: "0.5"})
    assert took >= 0.75, f"a 2 s stream at scale 0.5 took {took:.2f}s"


def test_the_scenarios_setting_scales_the_waits(make_server: MakeServer):
    server = make_server("settings: {time_scale: 0}\n" + PACED)
    took, body = streamed(server, "file")
    assert took < 0.5, f"a 2 s stream took {took:.2f}s under settings.time_scale: 0"
    assert content(body) == WORDS
    assert_scripted_timeline(last_entry(server, "file"))


def test_the_command_line_comes_before_the_scenarios_setting(make_server: MakeServer):
    server = make_server("settings: {time_scale: 0}\n" + PACED, time_scale=0.5)
    took, _ = streamed(server, "cli-first")
    assert took >= 0.75, f"a 2 s stream at scale 0.5 took {took:.2f}s"


def test_keepalives_are_the_same_comments_at_scale_0(make_server: MakeServer):
    fast, scripted = make_server(PACED, keepalive_ms=500, time_scale=0), make_server(PACED, keepalive_ms=500)
    took, body = streamed(fast, "keepalive", prompt="slow start")
    assert took < 0.6, f"a 1.2 s first token took {took:.2f}s at scale 0"
    assert parse_sse(body).comments == ["ZENMUX PROCESSING", "ZENMUX PROCESSING"]  # 1.2 s: two intervals of 0.5
    assert streamed(scripted, "keepalive", prompt="slow start")[1] == body


@pytest.mark.parametrize("value", ["-1", "fast", "nan", "inf"])
def test_a_bad_header_is_a_400_naming_it(make_server: MakeServer, value: str):
    server = make_server(PACED)
    sent = {"Authorization": f"Bearer {API_KEY}", TIME_SCALE_HEADER: value}
    answer = httpx.post(f"{server.base_url}/chat/completions", json=chat("paced"), headers=sent, timeout=30)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_params" and TIME_SCALE_HEADER in error["message"], error
    anthropic = httpx.post(
        f"{server.origin}/api/anthropic/v1/messages",
        json={"model": "openai/gpt-5", "max_tokens": 16, "messages": [{"role": "user", "content": "x"}]},
        headers={"x-api-key": API_KEY, "anthropic-version": "2023-06-01", TIME_SCALE_HEADER: value},
        timeout=30,
    )
    assert anthropic.status_code == 400
    assert TIME_SCALE_HEADER in anthropic.json()["error"]["message"]


def test_a_delay_fault_and_provider_latency_are_scaled(make_server: MakeServer):
    server = make_server(
        """
        models:
          openai/slow:
            providers: [{name: far, latency_ms: 3000}]
        rules:
          - name: plain
            match: {}
            reply: {content: "fine"}
        """
    )
    sent = {"Authorization": f"Bearer {API_KEY}", TIME_SCALE_HEADER: "0", "X-Emulator-Fault": "delay=3000"}
    began = time.monotonic()
    answer = httpx.post(f"{server.base_url}/chat/completions", json=chat("x", stream=False), headers=sent, timeout=30)
    assert answer.status_code == 200 and time.monotonic() - began < 1.5  # a 3 s delay, not waited
    sent.pop("X-Emulator-Fault")
    body = {**chat("x"), "model": "openai/slow"}
    began = time.monotonic()
    with httpx.stream("POST", f"{server.base_url}/chat/completions", json=body, headers=sent, timeout=30) as r:
        assert r.status_code == 200
        r.read()
    assert time.monotonic() - began < 1.5  # a provider's 3 s latency, not waited
    entry = http(f"{server.origin}/_emulator/journal").json()["entries"][-1]
    assert entry["event_offsets_ms"][0] >= 3000  # the timeline keeps the provider's latency


def test_a_hang_still_hangs_at_scale_0(make_server: MakeServer):
    server = make_server(PACED)
    sent = {"Authorization": f"Bearer {API_KEY}", TIME_SCALE_HEADER: "0", "X-Emulator-Fault": "hang"}
    began = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{server.base_url}/chat/completions", json=chat("x", stream=False), headers=sent, timeout=1)
    assert time.monotonic() - began >= 0.9  # the client gave up: the emulator did not answer


def test_two_files_that_disagree_on_the_scale_do_not_load(tmp_path):
    from tests.support.shipped import load_paths

    (tmp_path / "a.yaml").write_text("settings: {time_scale: 0}\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("settings: {time_scale: 1}\n", encoding="utf-8")
    with pytest.raises(Exception, match="time_scale is already 0 in"):
        load_paths([tmp_path])
