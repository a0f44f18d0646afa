"""Balances on the ObjectiveAI face, over HTTP: a Query request is charged its response's total
usage at the upstream LLMs' catalogue pricing (or their scripted cost), not the draft's tokens;
`X-Emulator-Balance` and `GET /objectiveai/auth/credits` agree."""

from __future__ import annotations

import math

from tests.conftest import MakeServer

from .examples import llm
from .wire_helpers import raw, stream

KEY = "sk-rich"
PRICED = f"""\
settings: {{balances: {{{KEY}: 1.0}}}}
models:
  openai/gpt-5-nano: {{pricing: {{prompt: 1000, completion: 2000}}}}   # USD per million tokens
  openai/gpt-5-mini: {{pricing: {{prompt: 3000, completion: 4000}}}}
rules:
  - name: billed
    match: {{api: objectiveai}}
    reply:
      query:
        llms:
          - match: {{id: openai/gpt-5-nano}}
            output: {{content: a, usage: {{prompt_tokens: 10, completion_tokens: 5}}}}
          - match: {{id: openai/gpt-5-mini}}
            output: {{content: b, usage: {{prompt_tokens: 20, completion_tokens: 10, cost: 0.5}}}}
          - match: {{id: google/*}}
            output: {{error: {{code: 502}}}}
"""
MODEL = {
    "models": [
        llm("openai/gpt-5-nano", "generate", 1),
        llm("openai/gpt-5-mini", "generate", 1),
        llm("google/gemini-2.5-flash", "generate", 1),
    ],
    "weight": {"type": "static"},
}
BODY = {"messages": [{"role": "user", "content": "hi"}], "model": MODEL}
NANO_COST = (10 * 1000 + 5 * 2000) / 1_000_000  # 0.02, at the catalogue's pricing
MINI_COST = 0.5  # scripted
CHARGE = NANO_COST + MINI_COST  # the failed LLM costs nothing


def credits(server: object) -> dict[str, float]:
    return raw(server, "s", None, path="/auth/credits", method="GET", api_key=KEY).json()  # type: ignore[arg-type,no-any-return]


def test_a_query_is_charged_its_total_usage_and_cost(make_server: MakeServer) -> None:
    server = make_server(PRICED)
    answer = raw(server, "s", {**BODY, "usage": {"include": True}}, api_key=KEY)
    assert answer.status == 200
    assert math.isclose(answer.json()["usage"]["cost"], CHARGE, abs_tol=1e-12)
    assert math.isclose(float(answer.headers["x-emulator-balance"]), 1.0 - CHARGE, abs_tol=1e-8)
    used = credits(server)
    assert math.isclose(used["total_credits_used"], CHARGE, abs_tol=1e-12)
    assert math.isclose(used["credits"], 1.0 - CHARGE, abs_tol=1e-12)


def test_the_charge_does_not_depend_on_the_usage_showing_the_cost(make_server: MakeServer) -> None:
    server = make_server(PRICED)
    answer = raw(server, "s", BODY, api_key=KEY)
    assert "cost" not in answer.json()["usage"]
    assert math.isclose(credits(server)["total_credits_used"], CHARGE, abs_tol=1e-12)


def test_a_streamed_query_is_charged_the_same(make_server: MakeServer) -> None:
    server = make_server(PRICED)
    items = stream(server, "s", BODY, api_key=KEY)
    assert items[-1]["usage"]["total_tokens"] == 45
    assert math.isclose(credits(server)["total_credits_used"], CHARGE, abs_tol=1e-12)


def test_a_spent_balance_refuses_the_next_query(make_server: MakeServer) -> None:
    server = make_server(PRICED.replace(f"{KEY}: 1.0", f"{KEY}: 0.3"))
    assert raw(server, "s", BODY, api_key=KEY).status == 200  # 0.52 spent of 0.3
    refused = raw(server, "s", BODY, api_key=KEY)
    assert refused.status == 402 and refused.json()["kind"] == "query"


def test_a_closed_catalogue_admits_query_models_and_prices_only_declared_llms(make_server: MakeServer) -> None:
    server = make_server(PRICED.replace("settings: {", "settings: {catalogue: closed, "))
    answer = raw(server, "s", {**BODY, "usage": {"include": True}}, api_key=KEY)
    assert answer.status == 200, answer.text
    assert math.isclose(answer.json()["usage"]["cost"], CHARGE, abs_tol=1e-12)
    unlisted = {**BODY, "model": {"models": [llm("vendor/unlisted", "generate", 1)], "weight": {"type": "static"}}}
    priced = raw(server, "s", {**unlisted, "usage": {"include": True}}, api_key=KEY)
    assert priced.status == 200 and priced.json()["usage"]["cost"] == 0.0


def test_a_closed_catalogue_still_refuses_unknown_chat_models(make_server: MakeServer) -> None:
    from tests.support.clients import API_KEY, http

    server = make_server("settings: {catalogue: closed}\nrules: []\n")
    answer = http(
        server.base_url + "/chat/completions",
        b'{"model": "vendor/unknown", "messages": [{"role": "user", "content": "hi"}]}',
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
    )
    assert answer.status == 400
