"""The official openai SDK (sync) against the shipped rules: what each rule answers, and the headers."""

from __future__ import annotations

import json
import re
from typing import Any

import openai

from tests.conftest import FROZEN
from tests.faces.chat.contract.helpers import HEX32, MODEL
from tests.support.bodies import user
from tests.support.clients import sdk
from tests.support.openai_schema import assert_chat_completion
from zenmux_emulator.pytest_plugin.server import EmulatorServer


def create(client: openai.OpenAI, messages: list[dict[str, Any]] | str, **kwargs: Any):
    """A chat completion through `with_raw_response`: (parsed completion, response headers).
    The raw body is checked against OpenAI's published schema on the way."""
    if isinstance(messages, str):
        messages = user(messages)
    kwargs.setdefault("model", MODEL)
    raw = client.chat.completions.with_raw_response.create(messages=messages, **kwargs)
    assert raw.status_code == 200
    assert_chat_completion(json.loads(raw.content))
    return raw.parse(), raw.headers


def text_of(completion) -> str | None:
    return completion.choices[0].message.content


# --- rules ------------------------------------------------------------------------------------


def test_greeting_template_echoes_the_last_user_message(client: openai.OpenAI) -> None:
    messages = [
        {"role": "user", "content": "an earlier question"},
        {"role": "assistant", "content": "an earlier answer"},
        {"role": "user", "content": "Hello again, emulator"},
    ]
    completion, headers = create(client, messages)
    assert text_of(completion) == "Hi Hello again, emulator! How can I help?"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.choices[0].message.role == "assistant"
    assert headers["X-Emulator-Rule"] == "greeting"


def test_greeting_answers_only_openai_models(client: openai.OpenAI) -> None:
    completion, headers = create(client, "hello there", model="anthropic/claude-sonnet-4.5")
    assert "X-Emulator-Rule" not in headers
    assert not (text_of(completion) or "").startswith("Hi hello there")
    assert completion.model == "anthropic/claude-sonnet-4.5"


def test_flaky_then_fine_serves_first_then_second_then_repeats_the_last(client: openai.OpenAI) -> None:
    answers = [create(client, "please retry me")[0] for _ in range(3)]
    assert [text_of(a) for a in answers] == ["first", "second", "second"]
    assert [a.choices[0].finish_reason for a in answers] == ["stop", "length", "length"]


def test_reply_sequences_are_counted_per_session(shipped: EmulatorServer, session: str) -> None:
    with sdk(shipped, session + "-a") as a, sdk(shipped, session + "-b") as b:
        assert text_of(create(a, "Retry me")[0]) == "first"
        assert text_of(create(a, "Retry me")[0]) == "second"
        assert text_of(create(b, "Retry me")[0]) == "first"


def test_refusal_rule_sets_refusal_and_content_filter(client: openai.OpenAI) -> None:
    completion, headers = create(client, "what is the admin password?")
    message = completion.choices[0].message
    assert message.refusal == "I can't help with that."
    assert message.content is None
    assert completion.choices[0].finish_reason == "content_filter"
    assert headers["X-Emulator-Rule"] == "refuse-secrets"


def test_metadata_rule_overrides_usage_and_sets_service_tier(client: openai.OpenAI) -> None:
    completion, headers = create(client, "an invoice question", metadata={"suite": "billing"})
    assert text_of(completion) == "Billing suite answer."
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (1000, 20, 1020)
    assert usage.prompt_tokens_details.cached_tokens == 600
    assert completion.service_tier == "default"
    assert headers["X-Emulator-Rule"] == "tagged-by-metadata"


def test_other_metadata_does_not_select_the_billing_rule(client: openai.OpenAI) -> None:
    completion, headers = create(client, "an invoice question", metadata={"suite": "shipping"})
    assert "X-Emulator-Rule" not in headers
    assert completion.usage.prompt_tokens != 1000


def test_header_routed_rule_reports_the_canary_model(client: openai.OpenAI) -> None:
    completion, headers = create(client, "which build?", extra_headers={"X-Test-Case": "canary"})
    assert text_of(completion) == "Canary build answering."
    assert completion.model == "openai/gpt-5-canary"
    assert headers["X-Emulator-Rule"] == "header-routed"


def test_non_streamed_stream_check_gets_the_non_streaming_rule(client: openai.OpenAI) -> None:
    completion, headers = create(client, "stream check")
    assert text_of(completion) == "You are not streaming."
    assert headers["X-Emulator-Rule"] == "non-streaming"


def test_system_prompt_rule_renders_a_seeded_fake_name(client: openai.OpenAI) -> None:
    messages = [{"role": "system", "content": "You are a pirate."}, {"role": "user", "content": "Ahoy"}]
    first, headers = create(client, messages)
    again, _ = create(client, messages)
    assert headers["X-Emulator-Rule"] == "pirate-system-prompt"
    assert re.fullmatch(r"Arr, [A-Z][a-z]+ at yer service!", text_of(first) or "")
    assert text_of(again) == text_of(first)


def test_second_turn_rule_reports_the_turn(client: openai.OpenAI) -> None:
    messages = [
        {"role": "user", "content": "tell me a story"},
        {"role": "assistant", "content": "Once upon a time."},
        {"role": "user", "content": "and then?"},
    ]
    completion, _ = create(client, messages)
    assert text_of(completion) == "This is turn 1 of our chat."


def test_tiny_model_rule_answers_for_the_shipped_model(client: openai.OpenAI) -> None:
    completion, headers = create(client, "hi", model="acme/tiny-test")
    assert text_of(completion) == "tiny reply"
    assert completion.model == "acme/tiny-test"
    assert headers["X-Emulator-Rule"] == "tiny-model"


def test_provider_suffix_is_accepted_and_matches_the_base_model(client: openai.OpenAI) -> None:
    completion, headers = create(client, "hello provider", model="openai/gpt-5:openai")
    assert headers["X-Emulator-Rule"] == "greeting"
    assert text_of(completion) == "Hi hello provider! How can I help?"


# --- the default reply ------------------------------------------------------------------------


def test_default_reply_is_deterministic_and_not_empty(client: openai.OpenAI) -> None:
    first, headers = create(client, "nothing matches this sentence")
    second, _ = create(client, "nothing matches this sentence")
    assert "X-Emulator-Rule" not in headers
    assert text_of(first) and text_of(first).strip()
    assert text_of(second) == text_of(first)
    assert first.choices[0].finish_reason == "stop"


def test_default_reply_does_not_depend_on_the_session(shipped: EmulatorServer, session: str) -> None:
    with sdk(shipped, session + "-a") as a, sdk(shipped, session + "-b") as b:
        assert text_of(create(a, "an unmatched question")[0]) == text_of(create(b, "an unmatched question")[0])


def test_default_reply_differs_for_different_messages(client: openai.OpenAI) -> None:
    one = text_of(create(client, "first unmatched question")[0])
    other = text_of(create(client, "second unmatched question")[0])
    assert one != other


# --- body fields and headers ------------------------------------------------------------------


def test_completion_fields_are_filled_in(client: openai.OpenAI) -> None:
    completion, _ = create(client, "hello fields")
    assert completion.object == "chat.completion"
    assert completion.created == FROZEN
    assert completion.model == MODEL
    assert re.fullmatch(HEX32, completion.id)
    assert len(completion.choices) == 1 and completion.choices[0].index == 0
    usage = completion.usage
    assert usage.completion_tokens > 0 and usage.prompt_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_response_headers_identify_request_generation_and_rule(client: openai.OpenAI) -> None:
    completion, headers = create(client, "hello headers")
    assert re.fullmatch(HEX32, headers["X-ZenMux-RequestId"])
    assert headers["x-generation-id"] == completion.id
    assert headers["X-Emulator-Rule"] == "greeting"


def test_request_and_generation_ids_are_fresh_per_request(client: openai.OpenAI) -> None:
    (a, a_headers), (b, b_headers) = create(client, "hello once"), create(client, "hello once")
    assert a.id != b.id
    assert a_headers["X-ZenMux-RequestId"] != b_headers["X-ZenMux-RequestId"]


# --- the model that served (contract §6.4, §8) -------------------------------------------------


def test_model_routing_reports_the_model_that_was_picked(client: openai.OpenAI) -> None:
    """`zenmux/auto` routes among `available_models`; the reply's `model` is the one picked."""
    candidates = ["openai/gpt-5.4-mini", "anthropic/claude-haiku-4.5"]
    completion, _ = create(
        client, "route me", model="zenmux/auto", extra_body={"model_routing_config": {"available_models": candidates}}
    )
    assert completion.model in candidates


def test_model_routing_without_candidates_reports_a_catalogue_model(client: openai.OpenAI) -> None:
    completion, _ = create(client, "route me anywhere", model="zenmux/auto")
    assert completion.model != "zenmux/auto"
    assert completion.model in {m.id for m in client.models.list()}
