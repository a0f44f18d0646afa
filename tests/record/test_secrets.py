"""What is written and what is not: no key, no `--redact` match, no request header; a failed
upstream call is passed on and recorded only with --record-errors."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import openai
import pytest

from tests.conftest import MakeServer
from tests.record.helpers import recorded, recorder, rule_for, serving, upstream
from zenmux_emulator.record.store import FILENAME

KEY = "sk-ai-v1-very-secret-key-0123456789"
PATTERN = r"TICKET-\d{4}"


def test_no_key_and_no_redacted_text_is_written(make_server: MakeServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    prompt = f"a plain question about TICKET-4242, my key is {KEY}"
    with (
        recorder(upstream(make_server), out, redact=[PATTERN]) as proxy,
        openai.OpenAI(
            base_url=proxy.base_url,
            api_key=KEY,
            max_retries=0,
            default_headers={"x-api-key": KEY, "Cookie": "session=abc123secret"},
        ) as client,
    ):
        live = client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": prompt}]
        )
    assert live.choices[0].message.content == f"You asked: {prompt}"  # the client got the answer unchanged

    text = (out / FILENAME).read_text(encoding="utf-8")
    assert KEY not in text and "abc123secret" not in text
    assert re.search(PATTERN, text) is None
    assert "authorization" not in text.lower() and "cookie" not in text.lower()
    rule = rule_for(out, "plain")
    assert rule["reply"]["content"] == "You asked: a plain question about [REDACTED], my key is [REDACTED]"

    with (
        serving(out, strict=True) as replay,
        openai.OpenAI(  # the masked prompt still matches the request that made it
            base_url=replay.base_url, api_key="sk-another", max_retries=0
        ) as client,
    ):
        again = client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": prompt}]
        )
    assert again.choices[0].message.content == rule["reply"]["content"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("record_errors", [False, True])
def test_an_unreachable_upstream_is_a_502_in_zenmux_s_envelope(
    make_server: MakeServer, tmp_path: Path, record_errors: bool
) -> None:
    out = tmp_path / "recorded"
    source = upstream(make_server)
    port = _closed_port()
    # the upstream is up, but the recorder is pointed at a port nobody listens on
    with (
        recorder(source, out, record_errors=record_errors, upstream=f"http://127.0.0.1:{port}") as proxy,
        openai.OpenAI(base_url=proxy.base_url, api_key=KEY, max_retries=0) as client,
    ):
        with pytest.raises(openai.APIStatusError) as failed:
            client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "hi"}])
        entry = proxy.state.journal.entries()[-1]
    assert failed.value.status_code == 502
    assert failed.value.body == {
        "code": "502",
        "type": "no_provider_available",
        "message": (f"The upstream http://127.0.0.1:{port}/ could not be reached (ClientConnectorError)"),
    }
    assert entry.recorded is record_errors
    assert (out / FILENAME).exists() is record_errors
    if not record_errors:
        assert any("--record-errors" in w for w in entry.warnings)


def test_an_upstream_error_is_passed_on_unchanged_and_not_recorded_by_default(
    make_server: MakeServer, tmp_path: Path
) -> None:
    out = tmp_path / "recorded"
    with (
        recorder(upstream(make_server), out) as proxy,
        openai.OpenAI(base_url=proxy.base_url, api_key=KEY, max_retries=0) as client,
    ):
        with pytest.raises(openai.RateLimitError) as limited:
            client.chat.completions.create(
                model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "rate limit me"}]
            )
        ok = client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "a plain question"}]
        )
    assert limited.value.body == {"code": "429", "type": "rate_limit", "message": "Slow down"}
    assert limited.value.response.headers["retry-after"] == "7"
    assert ok.choices[0].message.content == "You asked: a plain question"
    assert [r["match"]["last_user"]["equals"] for r in recorded(out)["rules"]] == ["a plain question"]


CUT = """\
rules:
  - name: cut
    match: {last_user: {contains: "cut me off"}}
    reply: {content: "one two three four five six", stream: {fault: {kind: disconnect, after_chunks: 3}}}
"""


def _cut_stream(origin: str) -> tuple[list[str | None], type[BaseException]]:
    received: list[str | None] = []
    with (
        openai.OpenAI(base_url=f"{origin}/api/v1", api_key=KEY, max_retries=0) as client,
        pytest.raises(openai.APIError) as failed,
    ):
        for chunk in client.chat.completions.create(
            model="openai/gpt-5.4-mini", stream=True, messages=[{"role": "user", "content": "cut me off"}]
        ):
            received.append(chunk.choices[0].delta.content if chunk.choices else None)
    return received, type(failed.value)


def test_a_stream_the_upstream_cuts_is_cut_for_the_client_and_replayed_so(
    make_server: MakeServer, tmp_path: Path
) -> None:
    out = tmp_path / "recorded"
    with recorder(upstream(make_server, CUT), out, record_errors=True) as proxy:
        live = _cut_stream(proxy.origin)
        entry = proxy.state.journal.entries()[-1]
    assert live[0] == ["", "one", " two"] and entry.fault == "disconnect" and entry.recorded
    assert rule_for(out, "cut me off")["reply"]["stream"]["fault"] == {"kind": "disconnect", "after_chunks": 3}
    with serving(out, strict=True) as replay:
        assert _cut_stream(replay.origin) == live
