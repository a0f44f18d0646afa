"""Seeded chaos (server, rule, header) and the per-request control headers."""

from __future__ import annotations

import openai
import pytest
from pydantic import ValidationError

from tests.conftest import MakeServer
from tests.gateway.helpers import chat, post, socket_post
from tests.support.clients import sdk
from zenmux_emulator.cli.main import build_parser, settings_from
from zenmux_emulator.settings import Settings

RULES = """
rules:
  - {name: calm, match: {last_user: calm}, reply: {content: calm reply}}
  - {name: flaky, match: {last_user: flaky}, reply: {content: flaky reply},
     chaos: {rate: 1, error: {status: 429}}}
  - {name: dropping, match: {last_user: dropping}, reply: {content: never}, chaos: {rate: 1, fault: {kind: close}}}
  - {name: steady, match: {last_user: steady}, reply: {content: steady reply}, chaos: {rate: 0}}
  - {name: other, match: {last_user: other}, reply: {content: other reply}}
"""


def pattern(server, session: str = "chaos") -> list[int]:
    return [post(server, session, chat("calm")).status for _ in range(20)]


def test_server_chaos_is_seeded(make_server: MakeServer):
    one = make_server(RULES, seed=7, chaos_rate=0.5)
    two = make_server(RULES, seed=7, chaos_rate=0.5)
    three = make_server(RULES, seed=8, chaos_rate=0.5)
    first = pattern(one)
    assert set(first) == {200, 503}
    assert pattern(two) == first
    assert pattern(three) != first
    assert pattern(one, "another") != first  # each session draws its own
    body = post(make_server(RULES, chaos_rate=1), "s", chat("calm")).json()
    assert body["error"]["code"] == "503"


def test_server_chaos_can_be_a_fault(make_server: MakeServer):
    server = make_server(RULES, chaos_rate=1, chaos_failure="close")
    assert socket_post(server, "f") == b""


def test_rule_chaos_error_and_fault(make_server: MakeServer):
    server = make_server(RULES)
    with sdk(server, "rule") as client:
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "flaky"}])
    assert caught.value.body["type"] == "rate_limit"
    assert caught.value.response.headers["retry-after"] == "1"
    assert socket_post(server, "rule").startswith(b"HTTP/1.1 200")  # no chaos on an unmatched request


def test_rule_chaos_fault_closes(make_server: MakeServer):
    server = make_server(RULES)
    assert socket_post(server, "drop", {"X-Emulator-Rule": "dropping"}) == b""
    entry = server.state.journal.entries(session="drop")[-1]
    assert entry.fault == "close" and entry.rule == "dropping"


def test_header_beats_rule_beats_server(make_server: MakeServer):
    server = make_server(RULES, chaos_rate=1)
    assert post(server, "p", chat("calm")).status == 503  # server default
    assert post(server, "p", chat("steady")).status == 200  # the rule's rate 0 wins over the server's 1
    assert post(server, "p", chat("flaky")).status == 429  # the rule's own failure
    assert post(server, "p", chat("flaky"), headers={"X-Emulator-Chaos": "0"}).status == 200  # header wins
    assert post(server, "p", chat("steady"), headers={"X-Emulator-Chaos": "1"}).status == 503
    hit = post(server, "p", chat("steady"), headers={"X-Emulator-Chaos": "1; error=502"})
    assert hit.status == 502 and hit.json()["error"]["type"] == "no_provider_available"
    bad = post(server, "p", chat("steady"), headers={"X-Emulator-Chaos": "often"})
    assert bad.status == 400 and "X-Emulator-Chaos" in bad.json()["error"]["message"]


def test_header_chaos_is_seeded_too(make_server: MakeServer):
    one, two = make_server(RULES, seed=3), make_server(RULES, seed=3)
    statuses = [
        [post(s, "h", chat("calm"), headers={"X-Emulator-Chaos": "0.5"}).status for _ in range(20)] for s in (one, two)
    ]
    assert statuses[0] == statuses[1] and set(statuses[0]) == {200, 503}


def test_x_emulator_rule_forces_a_rule(make_server: MakeServer):
    server = make_server(RULES, strict=True)
    forced = post(server, "r", chat("calm"), headers={"X-Emulator-Rule": "other"})
    assert forced.status == 200
    assert forced.headers["x-emulator-rule"] == "other"
    assert forced.json()["choices"][0]["message"]["content"] == "other reply"
    unknown = post(server, "r", chat("calm"), headers={"X-Emulator-Rule": "nope"})
    assert unknown.status == 404
    assert unknown.json()["error"] == {
        "code": "404",
        "type": "emulator_no_match",
        "message": "No rule is named 'nope' (X-Emulator-Rule)",
    }
    # a forced rule brings its chaos along
    assert post(server, "r", chat("calm"), headers={"X-Emulator-Rule": "flaky"}).status == 429


def test_x_emulator_fault(make_server: MakeServer):
    server = make_server(RULES)
    with sdk(server, "f", headers={"X-Emulator-Fault": "error=429"}) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "calm"}])
    assert caught.value.body == {"code": "429", "type": "rate_limit", "message": "Rate limit exceeded"}
    assert caught.value.response.headers["retry-after"] == "1"
    assert socket_post(server, "f", {"X-Emulator-Fault": "close"}) == b""
    assert socket_post(server, "f", {"X-Emulator-Fault": "reset"}) == b""
    delayed = post(server, "f", chat("calm"), headers={"X-Emulator-Fault": "delay=1"})
    assert delayed.status == 200 and delayed.json()["choices"][0]["message"]["content"] == "calm reply"
    bad = post(server, "f", chat("calm"), headers={"X-Emulator-Fault": "explode"})
    assert bad.status == 400 and bad.json()["error"]["type"] == "invalid_params"
    entries = server.state.journal.entries(session="f")
    assert [e.fault for e in entries if e.fault] == ["close", "reset", "delay"]


def test_control_headers_can_be_turned_off(make_server: MakeServer):
    server = make_server(RULES, control_headers=False)
    for name, value in [
        ("X-Emulator-Fault", "error=429"),
        ("X-Emulator-Fault", "close"),
        ("X-Emulator-Rule", "nope"),
        ("X-Emulator-Chaos", "1"),
        ("X-Emulator-Chaos", "junk"),
    ]:
        answer = post(server, "named-session", chat("calm"), headers={name: value})
        assert answer.status == 200, (name, value)
        assert answer.json()["choices"][0]["message"]["content"] == "calm reply"
    # X-Emulator-Session still names the session
    assert len(server.state.journal.entries(session="named-session")) == 5


def test_settings_and_cli():
    assert Settings(chaos_failure=" reset ").chaos_failure == "reset"
    for bad in ("error=200", "boom", "delay=x", "hang=1"):
        with pytest.raises(ValidationError):
            Settings(chaos_failure=bad)
    with pytest.raises(ValidationError):
        Settings(chaos_rate=1.5)
    args = build_parser().parse_args(
        ["serve", "--no-control-headers", "--chaos-rate", "0.25", "--chaos-failure", "error=500"]
    )
    settings = settings_from(args)
    assert (settings.control_headers, settings.chaos_rate, settings.chaos_failure) == (False, 0.25, "error=500")
    assert settings_from(build_parser().parse_args(["serve"])).control_headers is True
