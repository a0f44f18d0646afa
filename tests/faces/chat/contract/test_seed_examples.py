"""ZenMux's own examples from the Create Chat Completion page (copied into seed_examples.json),
sent as they are and their documented answer compared key by key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeServer
from tests.faces.chat.contract.helpers import post
from tests.support.openai_schema import assert_chat_completion

EXAMPLES = json.loads((Path(__file__).parent / "seed_examples.json").read_text(encoding="utf-8"))
REQUEST: dict[str, Any] = EXAMPLES["basic_request"]
RESPONSE: dict[str, Any] = EXAMPLES["basic_response"]
MESSAGE = RESPONSE["choices"][0]["message"]

NOT_ASKED_LOGPROBS = ("choices", 0, "logprobs")
"""The example shows `logprobs: {content: [], refusal: null}` on a request that did not ask for
them; the page says logprobs are present only when asked, which the emulator follows (null)."""


def json_type(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def shape_differences(
    expected: Any, actual: Any, path: tuple[Any, ...] = (), skip: tuple[tuple[Any, ...], ...] = ()
) -> list[str]:
    """Every key of the example missing from the answer or of another JSON type, recursively."""
    if path in skip:
        return []
    if json_type(expected) != json_type(actual):
        return [f"{path}: {json_type(expected)} expected, got {json_type(actual)}"]
    found: list[str] = []
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{(*path, key)}: missing")
            else:
                found += shape_differences(value, actual[key], (*path, key), skip)
    elif isinstance(expected, list) and expected and actual:
        for i, value in enumerate(expected[: len(actual)]):
            found += shape_differences(value, actual[i], (*path, i), skip)
    return found


def test_the_example_request_unscripted_answers_in_the_documented_shape(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    response = post(server, REQUEST)
    assert response.status == 200, response.body
    body = response.json()
    assert_chat_completion(body)
    # a default reply carries no scripted service tier: that key is the only one left out
    assert (
        shape_differences({k: v for k, v in RESPONSE.items() if k != "service_tier"}, body, skip=(NOT_ASKED_LOGPROBS,))
        == []
    )
    message = body["choices"][0]["message"]
    assert body["model"] == RESPONSE["model"] and body["object"] == RESPONSE["object"]
    assert body["choices"][0]["finish_reason"] == "stop"
    assert message["role"] == "assistant" and message["refusal"] is None and message["annotations"] == []
    # gpt-5 is a reasoning model: it reasons unasked, in the openai shape of the example
    assert message["reasoning"]
    assert [(d["type"], d["format"], d["index"]) for d in message["reasoning_details"]] == [
        (d["type"], d["format"], d["index"]) for d in MESSAGE["reasoning_details"]
    ]
    assert message["reasoning_details"][0]["summary"] == message["reasoning"]
    assert message["reasoning_details"][1]["id"].startswith("rs_")
    assert message["reasoning_details"][1]["data"].startswith("gAAAAA")
    usage = body["usage"]
    assert usage["completion_tokens_details"]["reasoning_tokens"] > 0
    assert usage["completion_tokens"] > usage["completion_tokens_details"]["reasoning_tokens"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["prompt_tokens"] > 0  # counted the emulator's way (15 here, the example's tokenizer says 13)


def test_the_example_answer_scripted_comes_back_key_by_key(make_server: MakeServer) -> None:
    usage = RESPONSE["usage"]
    rule = {
        "rules": [
            {
                "name": "seed",
                "reply": {
                    "content": MESSAGE["content"],
                    "reasoning": MESSAGE["reasoning"],
                    "service_tier": RESPONSE["service_tier"],
                    "usage": {
                        "prompt_tokens": usage["prompt_tokens"],
                        "completion_tokens": usage["completion_tokens"],
                        "reasoning_tokens": usage["completion_tokens_details"]["reasoning_tokens"],
                    },
                },
            }
        ]
    }
    server = make_server(json.dumps(rule, ensure_ascii=False))
    body = post(server, REQUEST).json()
    assert_chat_completion(body)
    assert shape_differences(RESPONSE, body, skip=(NOT_ASKED_LOGPROBS,)) == []
    for key in ("model", "object", "service_tier"):
        assert body[key] == RESPONSE[key], key
    choice, expected = body["choices"][0], RESPONSE["choices"][0]
    assert (choice["index"], choice["finish_reason"]) == (expected["index"], expected["finish_reason"])
    message = choice["message"]
    for key in ("role", "content", "refusal", "annotations", "reasoning"):
        assert message[key] == MESSAGE[key], key
    summary, encrypted = message["reasoning_details"]
    assert summary == MESSAGE["reasoning_details"][0]
    assert {k: encrypted[k] for k in ("index", "format", "type")} == {
        k: MESSAGE["reasoning_details"][1][k] for k in ("index", "format", "type")
    }
    for key in ("completion_tokens", "prompt_tokens", "total_tokens"):
        assert body["usage"][key] == usage[key], key
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == 384
    assert body["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


@pytest.mark.parametrize("check", ["off", "strict"])
def test_the_multi_turn_example_is_a_valid_request(make_server: MakeServer, check: str) -> None:
    """The page's tool-calling continuation validates; its signature is Anthropic's, not the
    emulator's, so the passed-back check refuses it unless turned off."""
    server = make_server("rules: []\n", reasoning_check=check)
    response = post(server, EXAMPLES["passback_request"])
    if check == "off":
        assert response.status == 200, response.body
        message = response.json()["choices"][0]["message"]
        assert message["content"] and message["reasoning_details"][0]["format"] == "anthropic-claude-v1"
    else:
        assert response.status == 400, response.body
        assert response.json()["error"]["type"] == "invalid_params"
        assert "Invalid `signature` in `thinking` block" in response.json()["error"]["message"]
