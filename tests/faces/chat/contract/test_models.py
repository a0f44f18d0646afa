"""`GET /api/v1/models` and `GET /api/v1/models/{id}` through the openai SDK and raw HTTP."""

from __future__ import annotations

import openai
import pytest

from tests.faces.chat.contract.helpers import assert_envelope, request
from zenmux_emulator.pytest_plugin.server import EmulatorServer

BUILT_IN = [
    "openai/gpt-5",
    "openai/gpt-5.4-mini",
    "anthropic/claude-sonnet-4.5",
    "anthropic/claude-haiku-4.5",
    "google/gemini-2.5-pro",
    "google/gemini-2.5-flash-lite",
    "moonshotai/kimi-k2.5",
    "z-ai/glm-5.1",
]


def entries(client: openai.OpenAI) -> dict[str, dict]:
    return {m.id: m.to_dict() for m in client.models.list()}


def test_list_has_built_in_and_scenario_models(client: openai.OpenAI) -> None:
    listed = entries(client)
    for model_id in [*BUILT_IN, "acme/tiny-test"]:
        assert model_id in listed
    assert {model_id.split("/")[0] for model_id in listed} >= {"openai", "anthropic", "google", "acme"}


def test_every_entry_has_zenmux_fields(client: openai.OpenAI) -> None:
    for model_id, entry in entries(client).items():
        assert entry["id"] == model_id
        assert entry["object"] == "model"
        assert isinstance(entry["display_name"], str) and entry["display_name"]
        assert isinstance(entry["context_length"], int) and entry["context_length"] > 0
        assert isinstance(entry["capabilities"]["reasoning"], bool)
        assert isinstance(entry["created"], int)
        assert entry["owned_by"]
        assert "text" in entry["input_modalities"] and entry["output_modalities"]
        assert {"prompt", "completion"} <= set(entry["pricings"])
        for prices in entry["pricings"].values():
            assert prices and all(p["unit"] == "perMTokens" and p["currency"] == "USD" for p in prices)
            assert all(isinstance(p["value"], (int, float)) and p["value"] >= 0 for p in prices)


def test_scenario_model_is_listed_as_declared(client: openai.OpenAI) -> None:
    tiny = entries(client)["acme/tiny-test"]
    assert tiny["display_name"] == "Acme: Tiny Test"
    assert tiny["context_length"] == 64
    assert tiny["owned_by"] == "acme"
    assert tiny["capabilities"] == {"reasoning": False}
    assert tiny["pricings"]["prompt"] == [{"value": 0.5, "unit": "perMTokens", "currency": "USD"}]
    assert tiny["pricings"]["completion"] == [{"value": 1.5, "unit": "perMTokens", "currency": "USD"}]


def test_retrieve_a_built_in_model(client: openai.OpenAI) -> None:
    model = client.models.retrieve("openai/gpt-5").to_dict()
    assert model["id"] == "openai/gpt-5"
    assert model["object"] == "model"
    assert model["capabilities"]["reasoning"] is True
    assert model["context_length"] == 400_000
    assert model == entries(client)["openai/gpt-5"]


def test_retrieve_an_unknown_model_is_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("openai/gpt-0")
    assert caught.value.status_code == 404
    assert caught.value.response.json()["error"]["code"] == "404"
    assert caught.value.type == "invalid_model"


def test_listing_needs_no_key(shipped: EmulatorServer) -> None:
    response = request(shipped, method="GET", path="/api/v1/models", key=None)
    assert response.status == 200
    assert response.content_type.startswith("application/json")
    assert response.headers.get("X-ZenMux-RequestId")
    body = response.json()
    assert body["object"] == "list"
    assert "acme/tiny-test" in [m["id"] for m in body["data"]]


def test_unknown_model_by_raw_http_is_the_envelope(shipped: EmulatorServer) -> None:
    response = request(shipped, method="GET", path="/api/v1/models/acme/nothing")
    assert_envelope(response, 404, "invalid_model")


def test_closed_catalogue_lists_only_declared_models(make_server) -> None:
    server = make_server("""
        settings: {catalogue: closed}
        models:
          acme/only-model: {display_name: "Acme: Only", context_length: 1000, reasoning: true}
    """)
    body = request(server, method="GET", path="/api/v1/models").json()
    assert [m["id"] for m in body["data"]] == ["acme/only-model"]
    assert body["data"][0]["capabilities"] == {"reasoning": True}


def test_the_built_in_catalogue_is_zenmux_s_snapshot(make_server) -> None:
    """112 models as public facts recorded them on 2026-07-02, each in ZenMux's listing shape."""
    listed = {
        m["id"]: m for m in request(make_server("rules: []\n"), method="GET", path="/api/v1/models").json()["data"]
    }
    assert len(listed) == 112
    assert {model_id.split("/")[0] for model_id in listed} >= {
        "openai",
        "anthropic",
        "google",
        "deepseek",
        "x-ai",
        "z-ai",
        "qwen",
        "moonshotai",
        "minimax",
    }
    glm = listed["z-ai/glm-5.1"]
    assert glm["display_name"] == "Z.AI: GLM-5.1" and glm["owned_by"] == "z-ai"
    assert glm["created"] == 1_775_174_400  # its release day, 2026-04-03, at midnight UTC
    assert glm["context_length"] == 200_000 and glm["capabilities"] == {"reasoning": True}
    assert glm["pricings"] == {
        "prompt": [{"value": 0.8781, "unit": "perMTokens", "currency": "USD"}],
        "completion": [{"value": 3.5126, "unit": "perMTokens", "currency": "USD"}],
        "input_cache_read": [{"value": 0.1903, "unit": "perMTokens", "currency": "USD"}],
    }
    assert listed["anthropic/claude-3.7-sonnet"]["input_modalities"] == [
        "text",
        "image",
        "file",
    ]  # pdf is ZenMux's file
    assert listed["anthropic/claude-haiku-4.5"]["capabilities"] == {"reasoning": False}
    unknown = listed["anthropic/claude-fable-5"]  # only its prices are known
    assert unknown["display_name"] == "anthropic/claude-fable-5" and unknown["created"] == 1_782_950_400  # the snapshot


def test_long_prompt_prices_are_listed_with_their_conditions(client: openai.OpenAI) -> None:
    prompt = client.models.retrieve("openai/gpt-5.5").to_dict()["pricings"]["prompt"]
    assert prompt == [
        {
            "value": 5,
            "unit": "perMTokens",
            "currency": "USD",
            "conditions": {"prompt_tokens": {"unit": "kTokens", "gte": 0, "lt": 272}},
        },
        {
            "value": 10,
            "unit": "perMTokens",
            "currency": "USD",
            "conditions": {"prompt_tokens": {"unit": "kTokens", "gte": 272}},
        },
    ]


def test_a_scenario_model_joins_the_catalogue_and_may_override_a_built_in_one(make_server) -> None:
    server = make_server("""
        models:
          acme/house-model: {display_name: "Acme: House", context_length: 4096, tool_call: false,
                             max_output_tokens: 1024, release_date: 2026-01-02, preferred_face: chat}
          openai/gpt-5: {display_name: "OpenAI: GPT-5 (pinned)", context_length: 1000}
        rules:
          - {name: any, match: {}, reply: {content: ok}}
    """)
    listed = {m["id"]: m for m in request(server, method="GET", path="/api/v1/models").json()["data"]}
    assert len(listed) == 113
    assert listed["acme/house-model"]["created"] == 1_767_312_000  # 2026-01-02
    assert listed["openai/gpt-5"]["display_name"] == "OpenAI: GPT-5 (pinned)"
    assert listed["openai/gpt-5"]["context_length"] == 1000
    reply = request(server, body={"model": "acme/house-model", "messages": [{"role": "user", "content": "hi"}]})
    assert reply.status == 200
