"""Rate limits per key on the emulator clock, and balances per key, through real servers."""

from __future__ import annotations

import openai
import pytest

from tests.conftest import MakeServer
from tests.gateway.helpers import MODEL, advance, chat, post, reset
from tests.support.clients import sdk
from tests.support.shipped import build_set
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.foundation.envelope import CATALOGUE
from zenmux_emulator.foundation.errors import ScenarioError

RPM2 = """
settings:
  limits: {rpm: 2, window_s: 60, keys: {sk-slow: {rpm: 1}, sk-fast: {rpm: 5}}}
"""


def ask(client: openai.OpenAI, text: str = "hello", model: str = MODEL):
    return client.chat.completions.with_raw_response.create(model=model, messages=[{"role": "user", "content": text}])


def test_the_request_over_rpm_gets_429_until_the_clock_moves(make_server: MakeServer):
    server = make_server(RPM2)
    with sdk(server, "rpm") as client:
        first, second = ask(client), ask(client)
        assert first.headers["x-ratelimit-limit-requests"] == "2"
        assert first.headers["x-ratelimit-remaining-requests"] == "1"
        assert second.headers["x-ratelimit-remaining-requests"] == "0"
        with pytest.raises(openai.RateLimitError) as caught:
            ask(client)
        error = caught.value
        assert error.status_code == 429
        assert error.body == {"code": "429", "type": "rate_limit", "message": "Rate limit exceeded"}
        assert error.response.headers["retry-after"] == "30"  # one request refills in 60 / 2 s
        assert error.response.headers["retry-after-ms"] == "30000"
        assert error.response.headers["x-ratelimit-remaining-requests"] == "0"

        advance(server, 29.5)
        with pytest.raises(openai.RateLimitError) as caught:
            ask(client)
        assert caught.value.response.headers["retry-after"] == "1"  # 0.5 s rounded up
        assert caught.value.response.headers["retry-after-ms"] == "500"

        advance(server, 0.5)
        again = ask(client)
        assert again.http_response.status_code == 200
        assert again.headers["x-ratelimit-remaining-requests"] == "0"


def test_tpm_counts_prompt_tokens_at_admission(make_server: MakeServer):
    body = chat("a prompt of several words to count " * 5)
    prompt = ChatRequest.of(body).prompt_tokens
    server = make_server(f"settings: {{limits: {{tpm: {2 * prompt}, window_s: 10}}}}\n")
    first = post(server, "tpm", body)
    assert first.status == 200
    assert first.headers["x-ratelimit-limit-tokens"] == str(2 * prompt)
    assert first.headers["x-ratelimit-remaining-tokens"] == str(prompt)
    assert "x-ratelimit-limit-requests" not in first.headers
    assert post(server, "tpm", body).status == 200
    third = post(server, "tpm", body)
    assert third.status == 429
    assert third.json()["error"]["type"] == "rate_limit"
    assert third.headers["retry-after"] == "5"  # `prompt` tokens refill in 10 / 2 s
    assert third.headers["x-ratelimit-remaining-tokens"] == "0"
    # a small prompt fits in what has refilled meanwhile
    advance(server, 5)
    assert post(server, "tpm", body).status == 200


def test_per_key_overrides_and_other_keys_use_the_defaults(make_server: MakeServer):
    server = make_server(RPM2)
    assert post(server, "keys", key="sk-slow").status == 200
    slow = post(server, "keys", key="sk-slow")
    assert slow.status == 429 and slow.headers["retry-after"] == "60"
    assert slow.headers["x-ratelimit-limit-requests"] == "1"
    statuses = [post(server, "keys", key="sk-fast").status for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    statuses = [post(server, "keys", key="sk-other").status for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_sessions_are_isolated_and_reset_refills(make_server: MakeServer):
    server = make_server(RPM2)
    assert [post(server, "a").status for _ in range(3)] == [200, 200, 429]
    assert [post(server, "b").status for _ in range(3)] == [200, 200, 429]
    reset(server, "a")
    assert post(server, "a").status == 200
    assert post(server, "b").status == 429


def test_streams_carry_the_rate_headers(make_server: MakeServer):
    server = make_server(RPM2)
    answer = post(server, "stream", chat(stream=True))
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.headers["x-ratelimit-remaining-requests"] == "1"


def balance_yaml(prompt: int, error: str | None = None) -> str:
    price = 0.4 * 1_000_000 / prompt  # each request costs 0.4 USD of prompt
    extra = f"\n  balance_error: {error}" if error else ""
    return f"""
settings:
  balances: {{sk-paid: 1.0, sk-empty: 0}}{extra}
models:
  acme/pricey: {{display_name: Pricey, context_length: 100000, pricing: {{prompt: {price}, completion: 0}}}}
"""


@pytest.mark.parametrize("error", [None, "insufficient_credit", "quote_exceeded"])
def test_a_spent_balance_answers_402(make_server: MakeServer, error: str | None):
    body = chat(model="acme/pricey")
    server = make_server(balance_yaml(ChatRequest.of(body).prompt_tokens, error))
    kind = error or "reject_no_credit"
    with sdk(server, "balance", api_key="sk-paid") as client:
        replies = [ask(client, model="acme/pricey") for _ in range(3)]  # 1.0 → 0.6 → 0.2 → -0.2
        assert [r.headers["x-emulator-balance"] for r in replies] == ["0.60000000", "0.20000000", "-0.20000000"]
        with pytest.raises(openai.APIStatusError) as caught:
            ask(client, model="acme/pricey")
    assert caught.value.status_code == 402
    assert caught.value.body == {"code": "402", "type": kind, "message": CATALOGUE[(402, kind)]}
    empty = post(server, "balance", body, key="sk-empty")
    assert empty.status == 402 and empty.json()["error"]["type"] == kind
    # keys without a balance are not limited; another session has its own balance; reset refills
    assert all(post(server, "balance", body, key="sk-free").status == 200 for _ in range(5))
    assert post(server, "other", body, key="sk-paid").status == 200
    reset(server, "balance")
    assert post(server, "balance", body, key="sk-paid").status == 200


def test_limits_set_twice_are_a_load_problem():
    text = "settings: {limits: {rpm: 1}, balances: {sk-a: 1}}\n"
    with pytest.raises(ScenarioError) as caught:
        build_set([("a.yaml", text), ("b.yaml", text)])
    reasons = {p.path: p.reason for p in caught.value.problems}
    assert reasons["settings.limits"] == "limits are already set in a.yaml"
    assert reasons["settings.balances.sk-a"] == "the balance of this key is already set in a.yaml"


def test_limits_refuse_unknown_keys_and_bad_values():
    with pytest.raises(ScenarioError):
        build_set([("a.yaml", "settings: {limits: {rpm: 0}}\n")])
    with pytest.raises(ScenarioError):
        build_set([("a.yaml", "settings: {limits: {rps: 1}}\n")])
    with pytest.raises(ScenarioError):
        build_set([("a.yaml", "settings: {balance_error: broke}\n")])
