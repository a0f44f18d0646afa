"""The Platform API with a Management key: refused to inference keys, the balance falling after a
chat call, the subscription windows, usage and cost from what was served, the shared 60-a-minute
limit, a scenario's account, and the generation lookup still answering."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import MakeServer
from tests.support.bodies import DEFAULT_MODEL
from tests.support.clients import API_KEY, Raw, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MANAGEMENT = "sk-mg-v1-test-management"
SUBSCRIPTION = "sk-ss-v1-test-subscription"
SCENARIO = """\
rules:
  - name: hello
    match: {last_user: {contains: hello}}
    reply: {content: "hello there, how are you today?"}
"""
MONTH = "type={kind}&query_dimension=BIZ_MTH&query_time=202601"


def get(server: EmulatorServer, path: str, key: str | None = MANAGEMENT) -> Raw:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return http(f"{server.base_url}/management/{path}", headers=headers)


def data(server: EmulatorServer, path: str) -> Any:
    reply = get(server, path)
    assert reply.status == 200, reply.text
    body = reply.json()
    assert body["success"] is True
    return body["data"]


@pytest.fixture
def server(make_server: MakeServer) -> Iterator[EmulatorServer]:
    yield make_server(SCENARIO)


def chat(server: EmulatorServer, key: str = API_KEY) -> openai.types.chat.ChatCompletion:
    with sdk(server, "platform", api_key=key) as client:
        return client.chat.completions.create(model=DEFAULT_MODEL, messages=[{"role": "user", "content": "hello"}])


@pytest.mark.parametrize(
    "path",
    [
        "payg/balance",
        "flow_rate",
        "subscription/detail",
        f"usage?{MONTH.format(kind='usage')}",
        f"cost?{MONTH.format(kind='cost')}",
    ],
)
def test_an_inference_key_is_refused_and_no_key_is_a_401(server: EmulatorServer, path: str) -> None:
    for key in (API_KEY, SUBSCRIPTION):
        refused = get(server, path, key)
        assert refused.status == 403
        assert refused.json()["error"]["type"] == "access_denied"
    assert get(server, path, None).status == 401


def test_the_balance_falls_by_a_chat_calls_cost(server: EmulatorServer) -> None:
    before = data(server, "payg/balance")
    assert before == {"currency": "usd", "total_credits": 100.0, "top_up_credits": 100.0, "bonus_credits": 0.0}
    reply = chat(server)
    generation = http(
        f"{server.base_url}/management/generation?id={reply.id}", headers={"Authorization": f"Bearer {MANAGEMENT}"}
    ).json()
    after = data(server, "payg/balance")
    assert generation["usage"] > 0
    assert after["total_credits"] == pytest.approx(100.0 - generation["usage"], abs=1e-6)
    assert after["total_credits"] < before["total_credits"]


def test_usage_and_cost_report_what_was_served(server: EmulatorServer) -> None:
    reply = chat(server)
    usage = data(server, f"usage?{MONTH.format(kind='usage')}")
    assert usage["requestCounts"] == "1"
    assert usage["tokensPrompt"] == str(reply.usage.prompt_tokens)
    assert usage["tokensCompletion"] == str(reply.usage.completion_tokens)
    [by_model] = usage["tokensByModel"]
    assert (by_model["bizTime"], by_model["modelSlug"]) == ("20260101", DEFAULT_MODEL)
    [by_key] = usage["tokensByApiKey"]
    assert by_key["apiKeyId"].startswith("key_") and API_KEY not in json.dumps(usage)
    cost = data(server, f"cost?{MONTH.format(kind='cost')}")
    total = float(cost["summary"]["totalCost"])
    assert total == pytest.approx(float(cost["summary"]["inputCost"]) + float(cost["summary"]["outputCost"]))
    assert total > 0
    assert data(server, "usage?type=usage&query_dimension=BIZ_MTH&query_time=202602")["requestCounts"] is None
    filtered = data(server, f"usage?{MONTH.format(kind='usage')}&model_slugs=openai/other")
    assert filtered["tokensByModel"] == []


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("query_dimension=BIZ_MTH&query_time=202601", "Parameter type is required"),
        ("type=usage&query_dimension=BIZ_DT&query_time=202601", "Parameter query_time is not valid"),
        ("type=usage&query_dimension=BIZ_MTH&query_time=202613", "Parameter query_time is not valid"),
        ("type=cost&query_dimension=BIZ_MTH&query_time=202601", "Parameter type is not valid"),
        ("type=provider&query_dimension=BIZ_MTH&query_time=202601", "Parameter model_slugs is not valid"),
        (f"{MONTH.format(kind='usage')}&colour=blue", "Parameter colour is not supported"),
    ],
)
def test_bad_usage_queries_are_400s(server: EmulatorServer, query: str, message: str) -> None:
    reply = get(server, f"usage?{query}")
    assert reply.status == 400
    assert reply.json()["error"]["message"].startswith(message)


def test_usage_and_cost_share_sixty_requests_a_minute(server: EmulatorServer) -> None:
    for i in range(60):
        assert (
            get(server, f"{'usage' if i % 2 else 'cost'}?{MONTH.format(kind='usage' if i % 2 else 'cost')}").status
            == 200
        )
    limited = get(server, f"usage?{MONTH.format(kind='usage')}")
    assert limited.status == 429
    assert limited.headers["retry-after"] == "60"
    assert get(server, "payg/balance").status == 200  # the other routes are not counted
    http(
        f"{server.origin}/_emulator/clock",
        json.dumps({"advance": 60}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    assert get(server, f"cost?{MONTH.format(kind='cost')}").status == 200


def test_the_analytics_retry_after_counts_down_on_the_emulator_s_clock(make_server: MakeServer) -> None:
    server = make_server(SCENARIO + "settings:\n  account: {usage_rpm: 2}\n")
    assert get(server, f"usage?{MONTH.format(kind='usage')}").status == 200
    advance(server, 20)
    assert get(server, f"cost?{MONTH.format(kind='cost')}").status == 200
    advance(server, 25)
    limited = get(server, f"usage?{MONTH.format(kind='usage')}")
    assert limited.status == 429
    assert limited.headers["retry-after"] == "15"  # the first call leaves the minute in 15 s of the clock
    advance(server, 15)
    assert get(server, f"usage?{MONTH.format(kind='usage')}").status == 200


def advance(server: EmulatorServer, seconds: float) -> None:
    http(
        f"{server.origin}/_emulator/clock",
        json.dumps({"advance": seconds}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )


def test_a_scenario_sets_the_account_and_subscription_keys_use_flows(make_server: MakeServer) -> None:
    server = make_server(
        SCENARIO
        + """\
settings:
  account:
    top_up_credits: 25
    bonus_credits: 5
    plan: {tier: pro, amount_usd: 20, expires_at: "2026-02-01T00:00:00Z"}
    account_status: monitored
    quota_5_hour: {max_flows: 100, used_flows: 40}
"""
    )
    assert data(server, "payg/balance") == {
        "currency": "usd",
        "total_credits": 30.0,
        "top_up_credits": 25.0,
        "bonus_credits": 5.0,
    }
    detail = data(server, "subscription/detail")
    assert detail["plan"] == {
        "tier": "pro",
        "amount_usd": 20.0,
        "interval": "month",
        "expires_at": "2026-02-01T00:00:00.000Z",
    }
    assert detail["account_status"] == "monitored"
    assert detail["quota_5_hour"]["usage_percentage"] == 0.4
    assert detail["quota_5_hour"]["resets_at"] is None
    chat(server, SUBSCRIPTION)
    after = data(server, "subscription/detail")
    assert after["quota_5_hour"]["used_flows"] > 40
    assert after["quota_5_hour"]["resets_at"] == "2026-01-01T05:00:00.000Z"
    assert data(server, "payg/balance")["total_credits"] == 30.0  # a subscription key spends Flows, not credits
    assert data(server, "flow_rate") == {
        "currency": "usd",
        "base_usd_per_flow": 0.03283,
        "effective_usd_per_flow": 0.03283,
    }


def test_the_journal_records_platform_calls(server: EmulatorServer) -> None:
    data(server, "payg/balance")
    entry = server.state.journal.entries()[-1]
    assert (entry.api, entry.path, entry.status) == ("platform", "/api/v1/management/payg/balance", 200)
