"""ZenMux's generation lookup over what the emulator served: a client gets a completion on each
face, then fetches its generation by the id it got, on the current route (camelCase) and the
deprecated one (snake_case)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import MakeServer, served_yaml
from tests.faces.anthropic.helpers import sdk as anthropic_sdk
from tests.support.clients import API_KEY, Raw, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SCENARIO = """\
models:
  acme/priced:
    pricing: {prompt: 2, completion: 4}       # USD per million tokens
    providers: [{name: acme, latency_ms: 30}]
  acme/retried:
    providers: [{name: down, fail: {status: 500}}, {name: up}]
rules:
  - name: tool
    match: {last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: paced
    match: {}
    reply:
      content: "one two three four five six"
      usage: {prompt_tokens: 1000, completion_tokens: 500}
      stream: {first_token_ms: 40, chunk_ms: 10, chunk_tokens: 2}
"""
MANAGEMENT, LEGACY = "/api/v1/management/generation", "/api/v1/generation"
HELLO: Any = [{"role": "user", "content": "hello"}]
CREATED = "2026-01-01T00:00:00.000Z"  # the frozen clock (FROZEN)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("generation"), SCENARIO) as running:
        yield running


def lookup(server: EmulatorServer, name: str, route: str = MANAGEMENT, key: str | None = API_KEY) -> Raw:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return http(f"{server.origin}{route}?id={name}", headers=headers)


def found(server: EmulatorServer, name: str, route: str = MANAGEMENT) -> dict[str, Any]:
    answer = lookup(server, name, route)
    assert answer.status == 200, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    return answer.json()


def native(prompt: int, completion: int) -> dict[str, Any]:
    return {
        "completion_tokens": completion,
        "prompt_tokens": prompt,
        "total_tokens": prompt + completion,
        "completion_tokens_details": {"reasoning_tokens": 0},
        "prompt_tokens_details": {"cached_tokens": 0},
    }


def test_a_chat_completion_by_its_id_on_both_routes(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        raw = client.chat.completions.with_raw_response.create(model="acme/priced", messages=HELLO)
    completion = raw.parse()
    assert raw.headers["x-generation-id"] == completion.id
    cost = (1000 * 2 + 500 * 4) / 1_000_000
    assert found(server, completion.id) == {
        "api": "chat.completions",
        "generationId": completion.id,
        "model": "acme/priced",
        "createAt": CREATED,
        "generationTime": 0,
        "latency": 30,
        "nativeTokens": native(1000, 500),
        "streamed": False,
        "finishReason": "stop",
        "usage": cost,
        "ratingResponses": {
            "billAmount": cost,
            "discountAmount": 0,
            "originAmount": cost,
            "priceVersion": "v1",
            "ratingDetails": [
                {
                    "billAmount": 1000 * 2e-6,
                    "discountAmount": 0,
                    "feeItemCode": "prompt",
                    "originAmount": 1000 * 2e-6,
                    "rate": 2e-6,
                },
                {
                    "billAmount": 500 * 4e-6,
                    "discountAmount": 0,
                    "feeItemCode": "completion",
                    "originAmount": 500 * 4e-6,
                    "rate": 4e-6,
                },
            ],
        },
        "requestRetryTimes": 0,
        "finalRetry": False,
    }
    assert found(server, completion.id, LEGACY) == {
        "generation_id": completion.id,
        "model": "acme/priced",
        "created_at": CREATED,
        "generation_time": 0,
        "latency": 30,
        "native_tokens": native(1000, 500),
        "streamed": False,
        "finish_reason": "stop",
        "usage": repr(cost),
    }
    assert completion.usage is not None and completion.usage.prompt_tokens == 1000


def test_a_streamed_chat_completion_reports_its_scripted_pace(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        chunks = list(client.chat.completions.create(model="openai/gpt-5.4-mini", messages=HELLO, stream=True))
    generation = found(server, chunks[0].id)
    assert {c.id for c in chunks} == {generation["generationId"]}
    assert generation["streamed"] is True and generation["finishReason"] == "stop"
    assert generation["api"] == "chat.completions" and generation["model"] == "openai/gpt-5.4-mini"
    assert generation["latency"] == 40  # the first chunk's wait (the vendor's provider has no latency)
    assert generation["generationTime"] == 10 * (len(chunks) - 1)  # every later chunk's
    assert len(chunks) > 3
    assert generation["nativeTokens"] == native(1000, 500)
    prices = {"prompt": 0.75, "completion": 4.5}  # openai/gpt-5.4-mini in the snapshot, USD per million
    assert generation["usage"] == pytest.approx((1000 * prices["prompt"] + 500 * prices["completion"]) / 1e6)


def test_a_tool_call_and_a_retried_provider(server: EmulatorServer, session: str) -> None:
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    with sdk(server, session) as client:
        called = client.chat.completions.create(
            model="acme/retried", tools=tools, messages=[{"role": "user", "content": "weather?"}]
        )
    generation = found(server, called.id)
    assert generation["finishReason"] == "tool_calls" == called.choices[0].finish_reason
    assert generation["requestRetryTimes"] == 1  # the first provider failed, the second served
    assert generation["usage"] == 0 and generation["ratingResponses"]["ratingDetails"][0]["rate"] == 0


def test_an_anthropic_message_by_its_msg_id_and_by_its_generation_id(server: EmulatorServer, session: str) -> None:
    with anthropic_sdk(server, session) as client:
        raw = client.messages.with_raw_response.create(
            model="anthropic/claude-sonnet-4.5", max_tokens=64, messages=HELLO
        )
        streamed = list(
            client.messages.create(model="anthropic/claude-sonnet-4.5", max_tokens=64, messages=HELLO, stream=True)
        )
    message = raw.parse()
    by_message = found(server, message.id)
    assert message.id.startswith("msg_") and by_message == found(server, raw.headers["x-generation-id"])
    assert by_message["api"] == "messages" and by_message["generationId"] == raw.headers["x-generation-id"]
    assert by_message["model"] == message.model == "anthropic/claude-sonnet-4.5"
    assert by_message["nativeTokens"]["completion_tokens"] == message.usage.output_tokens == 500
    assert by_message["streamed"] is False and by_message["finishReason"] == "stop"
    started = next(e for e in streamed if e.type == "message_start")
    again = found(server, started.message.id, LEGACY)
    assert again["streamed"] is True and again["latency"] == 40 and again["generation_id"] != message.id


def test_a_response_by_its_resp_id(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        response = client.responses.create(model="openai/gpt-5", input="hello")
        events = list(client.responses.create(model="openai/gpt-5", input="hello", stream=True))
    generation = found(server, response.id)
    assert response.id.startswith("resp_") and generation["generationId"] == response.id.removeprefix("resp_")
    assert generation["api"] == "responses" and generation["model"] == "openai/gpt-5"
    assert generation["nativeTokens"]["prompt_tokens"] == response.usage.input_tokens  # type: ignore[union-attr]
    assert generation["streamed"] is False
    done = next(e for e in events if e.type == "response.completed")
    assert found(server, done.response.id)["streamed"] is True


def test_an_objectiveai_query_completion_by_its_id(server: EmulatorServer, session: str) -> None:
    model = {
        "models": [{"id": "openai/gpt-5.4-nano", "mode": "generate", "weight": {"type": "static", "weight": 1}}],
        "weight": {"type": "static"},
    }
    with openai.OpenAI(
        base_url=server.objectiveai_url, api_key=API_KEY, max_retries=0, default_headers={"X-Emulator-Session": session}
    ) as client:
        reply: Any = client.post(
            "/query/completions", cast_to=object, body={"messages": HELLO, "model": model, "usage": {"include": True}}
        )
    generation = found(server, reply["id"])
    assert generation["api"] == "query.completions" and generation["model"] == reply["model"]
    assert generation["nativeTokens"]["completion_tokens"] == reply["usage"]["completion_tokens"]
    assert reply["usage"]["cost"] > 0  # the upstream LLM's tokens at its catalogue price
    assert generation["usage"] == pytest.approx(reply["usage"]["cost"])


def test_an_unknown_or_missing_id_and_a_missing_key(server: EmulatorServer) -> None:
    for route in (MANAGEMENT, LEGACY):
        unknown = lookup(server, "gen_0123456789", route)
        assert (unknown.status, unknown.json()) == (
            404,
            {"error": {"code": "404", "type": "not_found", "message": "Generation gen_0123456789 not found"}},
        )
        missing = http(server.origin + route, headers={"Authorization": f"Bearer {API_KEY}"})
        assert (missing.status, missing.json()["error"]["type"]) == (400, "invalid_params")
        assert missing.json()["error"]["message"] == "Parameter id is required"
        keyless = lookup(server, "gen_0123456789", route, key=None)
        assert (keyless.status, keyless.json()["error"]["type"]) == (403, "access_denied")


def test_a_subscription_key_gets_metering_only(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        completion = client.chat.completions.create(model="acme/priced", messages=HELLO)
    metered = lookup(server, completion.id, key="sk-ss-v1-subscription").json()
    assert metered["nativeTokens"] == native(1000, 500)
    assert "usage" not in metered and "ratingResponses" not in metered
    assert "usage" not in lookup(server, completion.id, LEGACY, key="sk-ss-v1-subscription").json()


def test_only_accepted_keys_may_look_up(make_server: MakeServer) -> None:
    server = make_server("settings: {api_keys: [sk-ai-v1-mine]}\nrules: []\n", api_keys=["sk-ai-v1-mine"])
    with sdk(server, "keys", api_key="sk-ai-v1-mine") as client:
        completion = client.chat.completions.create(model="openai/gpt-5", messages=HELLO)
    assert lookup(server, completion.id, key="sk-ai-v1-mine").status == 200
    refused = lookup(server, completion.id, key="sk-ai-v1-other")
    assert (refused.status, refused.json()["error"]["type"]) == (403, "access_denied")


def test_the_answer_is_the_same_bytes_every_time(server: EmulatorServer, session: str) -> None:
    with sdk(server, session) as client:
        completion = client.chat.completions.create(model="acme/priced", messages=HELLO)
    first, second = lookup(server, completion.id), lookup(server, completion.id)
    assert first.text == second.text and json.loads(first.text)["generationId"] == completion.id
