"""Provider routing and fallback (scenarios/routing.yaml): the gateway tries providers in order,
falls back to other providers or a fallback model, and records every attempt."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import FROZEN, SHIPPED
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

ROUTING = SHIPPED / "routing.yaml"
SONNET = "anthropic/claude-sonnet-4.5"


@pytest.fixture(scope="module")
def routing() -> Iterator[EmulatorServer]:
    with EmulatorServer(Settings(port=0, scenarios=[str(ROUTING)], clock=FROZEN, watch=False)) as server:
        yield server


@pytest.fixture
def client(routing: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(routing, session) as c:
        yield c


def ask(client: openai.OpenAI, model: str, **extra: Any) -> tuple[str, str]:
    """(the reply's model, the X-Emulator-Routing header) of one request."""
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": "which model?"}], extra_body=extra or None
    )
    return raw.parse().model, raw.headers["X-Emulator-Routing"]


def last_routing(server: EmulatorServer, session: str) -> list[dict[str, Any]]:
    return server.state.journal.entries(session=session)[-1].as_dict()["routing"]


def test_the_second_provider_serves_when_the_first_fails(
    client: openai.OpenAI, routing: EmulatorServer, session: str
) -> None:
    model, header = ask(client, SONNET)
    assert model == SONNET  # the client cannot tell: same model, answered by the rule
    assert header == f"{SONNET}@anthropic=503 internal_server_error; {SONNET}@amazon-bedrock=ok"
    assert [(a["provider"], a["outcome"]) for a in last_routing(routing, session)] == [
        ("anthropic", "503 internal_server_error"),
        ("amazon-bedrock", "ok"),
    ]


def test_fallback_false_returns_the_first_failure(client: openai.OpenAI) -> None:
    with pytest.raises(openai.APIStatusError) as caught:
        ask(client, SONNET, provider={"routing": {"type": "priority"}, "fallback": "false"})
    assert caught.value.status_code == 503
    assert caught.value.response.headers["X-Emulator-Routing"] == f"{SONNET}@anthropic=503 internal_server_error"


def test_a_pinned_provider_is_the_only_one_tried(client: openai.OpenAI) -> None:
    assert ask(client, f"{SONNET}:amazon-bedrock")[0] == SONNET
    with pytest.raises(openai.APIStatusError) as failed:
        ask(client, f"{SONNET}:anthropic")
    assert failed.value.status_code == 503
    with pytest.raises(openai.InternalServerError) as unknown:
        ask(client, f"{SONNET}:nowhere")
    assert unknown.value.status_code == 502 and unknown.value.body["type"] == "no_provider_available"


def test_the_fallback_model_serves_when_every_provider_fails_and_model_says_so(client: openai.OpenAI) -> None:
    model, header = ask(client, "acme/flaky-mini")
    assert model == "google/gemini-2.5-flash-lite"
    assert header.endswith("google/gemini-2.5-flash-lite@google=ok")
    assert "acme/flaky-mini@acme=500 provider_error" in header


def test_a_fallback_model_slug_in_the_request_is_the_model_fallback(client: openai.OpenAI) -> None:
    model, header = ask(
        client, "acme/always-down", provider={"routing": {"type": "priority"}, "fallback": "google/gemini-2.5-pro"}
    )
    assert model == "google/gemini-2.5-pro"
    assert header.count("=5") == 2 and header.endswith("google/gemini-2.5-pro@google=ok")


def test_every_provider_failing_gives_502_no_provider_available(client: openai.OpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "acme/always-down")
    assert caught.value.status_code == 502
    assert caught.value.body == {"code": "502", "type": "no_provider_available", "message": "No provider available"}


def test_a_provider_failing_its_first_requests_recovers_per_session(routing: EmulatorServer, session: str) -> None:
    with sdk(routing, session + "-a") as a, sdk(routing, session + "-b") as b:
        for client in (a, b):
            for _ in range(2):
                with pytest.raises(openai.InternalServerError):
                    ask(client, "acme/warming-up")
            assert ask(client, "acme/warming-up")[0] == "acme/warming-up"


def test_routing_order_by_type_and_factor(client: openai.OpenAI) -> None:
    listed = {"type": "priority", "providers": ["amazon-bedrock", "anthropic"]}
    assert ask(client, SONNET, provider={"routing": listed})[1] == f"{SONNET}@amazon-bedrock=ok"
    fastest = ask(client, SONNET, provider={"routing": {"type": "least_latency"}})[1]
    assert fastest.startswith(f"{SONNET}@anthropic")  # 0 ms declared: tried first, fails, then bedrock
    first = ask(client, SONNET, provider={"routing": {"type": "round_robin"}})[1]
    second = ask(client, SONNET, provider={"routing": {"type": "round_robin"}})[1]
    assert first != second  # the rotation moves on each request of the session


def test_invalid_routing_gets_the_documented_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as bad_type:
        ask(client, SONNET, provider={"routing": {"type": "fastest"}})
    assert bad_type.value.body["message"] == "Parameter type of provider.routing is not valid"
    with pytest.raises(openai.BadRequestError) as empty:
        ask(client, SONNET, provider={"routing": {"type": "priority", "providers": []}})
    assert empty.value.body["message"] == "Parameter providers of provider.routing is not valid"


@pytest.mark.parametrize(
    ("preference", "picked"),
    [
        ("price", "google/gemini-2.5-flash-lite"),
        ("performance", "openai/gpt-5"),
        ("balanced", "anthropic/claude-haiku-4.5"),
        ("anthropic/claude-haiku-4.5", "anthropic/claude-haiku-4.5"),
    ],
)
def test_zenmux_auto_picks_by_preference(client: openai.OpenAI, preference: str, picked: str) -> None:
    config = {
        "available_models": ["openai/gpt-5", "google/gemini-2.5-flash-lite", "anthropic/claude-haiku-4.5"],
        "preference": preference,
    }
    assert ask(client, "zenmux/auto", model_routing_config=config)[0] == picked


def test_the_rule_answers_whichever_provider_served(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="acme/flaky-mini", messages=[{"role": "user", "content": "which model?"}]
    )
    assert reply.choices[0].message.content == "Served by acme/flaky-mini as requested."
    assert reply.model == "google/gemini-2.5-flash-lite"
