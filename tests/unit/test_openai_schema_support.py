"""The OpenAI schema assertions accept what the schema allows and reject what it does not."""

from __future__ import annotations

import copy

import pytest

from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion

USAGE = {
    "prompt_tokens": 12,
    "completion_tokens": 5,
    "total_tokens": 17,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {
        "reasoning_tokens": 0,
        "audio_tokens": 0,
        "accepted_prediction_tokens": 0,
        "rejected_prediction_tokens": 0,
    },
}

COMPLETION = {
    "id": "gen-1700000000-abc123",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "openai/gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Hello!", "refusal": None, "annotations": []},
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": USAGE,
}

CHUNK = {
    "id": "gen-1700000000-abc123",
    "object": "chat.completion.chunk",
    "created": 1700000000,
    "model": "openai/gpt-4o-mini",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}],
}


def _broken(base: dict, change) -> dict:
    body = copy.deepcopy(base)
    change(body)
    return body


def test_a_minimal_completion_passes():
    assert_chat_completion(COMPLETION)


def test_a_completion_with_tool_calls_and_nullable_extras_passes():
    body = copy.deepcopy(COMPLETION)
    body["service_tier"] = None
    body["system_fingerprint"] = "fp_emulator"
    body["provider"] = "openai"  # extra properties are allowed
    body["choices"][0]["finish_reason"] = "tool_calls"
    body["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }
    assert_chat_completion(body)


def test_chunks_pass_including_the_usage_chunk():
    assert_chat_chunk(CHUNK)
    assert_chat_chunk({**CHUNK, "usage": None, "service_tier": None})
    finish = copy.deepcopy(CHUNK)
    finish["choices"] = [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}]
    assert_chat_chunk(finish)
    assert_chat_chunk({**CHUNK, "choices": [], "usage": USAGE})


def test_missing_choices_and_wrong_object_are_both_reported():
    body = _broken(COMPLETION, lambda b: (b.pop("choices"), b.update(object="chat.completion.chunk")))
    with pytest.raises(AssertionError) as caught:
        assert_chat_completion(body)
    message = str(caught.value)
    assert "2 errors" in message
    assert "'choices' is a required property" in message
    assert "$.object: 'chat.completion.chunk' is not one of ['chat.completion']" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b["choices"][0].pop("logprobs"), "$.choices[0]: 'logprobs' is a required property"),
        (lambda b: b["choices"][0]["message"].pop("refusal"), "$.choices[0].message: 'refusal' is a required"),
        (lambda b: b["choices"][0].update(finish_reason=None), "$.choices[0].finish_reason: None is not of type"),
        (lambda b: b["choices"][0]["message"].update(role="user"), "$.choices[0].message.role: 'user' is not one"),
        (lambda b: b["usage"].pop("total_tokens"), "$.usage: 'total_tokens' is a required property"),
        (lambda b: b.update(usage=None), "$.usage: None is not of type 'object'"),
        (lambda b: b.update(system_fingerprint=None), "$.system_fingerprint: None is not of type 'string'"),
        (lambda b: b.update(created="now"), "$.created: 'now' is not of type 'integer'"),
    ],
)
def test_completion_faults_are_named_with_their_path(change, expected):
    with pytest.raises(AssertionError, match="not a valid CreateChatCompletionResponse") as caught:
        assert_chat_completion(_broken(COMPLETION, change))
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.update(object="chat.completion"), "$.object: 'chat.completion' is not one of"),
        (lambda c: c["choices"][0].pop("finish_reason"), "$.choices[0]: 'finish_reason' is a required property"),
        (lambda c: c["choices"][0].pop("delta"), "$.choices[0]: 'delta' is a required property"),
        (lambda c: c["choices"][0].update(finish_reason="done"), "$.choices[0].finish_reason: 'done' is not valid"),
        (lambda c: c.update(usage={"prompt_tokens": 1}), "$.usage: {'prompt_tokens': 1} is not valid under any"),
    ],
)
def test_chunk_faults_are_named_with_their_path(change, expected):
    with pytest.raises(AssertionError, match="not a valid CreateChatCompletionStreamResponse") as caught:
        assert_chat_chunk(_broken(CHUNK, change))
    assert expected in str(caught.value)
