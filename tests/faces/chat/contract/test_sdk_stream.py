"""Streaming through the official openai SDK: chunks, rules that only stream, usage chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import openai

from tests.faces.chat.contract.helpers import MODEL
from tests.support.bodies import user
from tests.support.openai_schema import assert_chat_chunk


@dataclass
class Streamed:
    """A stream read to its end through the SDK."""

    chunks: list[Any] = field(default_factory=list)
    headers: Any = None

    @property
    def choice_chunks(self) -> list[Any]:
        return [c for c in self.chunks if c.choices]

    @property
    def content_pieces(self) -> list[str]:
        return [c.choices[0].delta.content for c in self.choice_chunks if c.choices[0].delta.content]

    @property
    def content(self) -> str:
        return "".join(self.content_pieces)

    @property
    def refusal(self) -> str:
        return "".join(c.choices[0].delta.refusal or "" for c in self.choice_chunks)

    @property
    def finish_reasons(self) -> list[str]:
        return [c.choices[0].finish_reason for c in self.choice_chunks if c.choices[0].finish_reason]


def stream(client: openai.OpenAI, text: str, **kwargs: Any) -> Streamed:
    """Stream a chat completion to its end; every chunk is checked against OpenAI's chunk schema."""
    kwargs.setdefault("model", MODEL)
    raw = client.chat.completions.with_raw_response.create(messages=user(text), stream=True, **kwargs)
    result = Streamed(headers=raw.headers)
    with raw.parse() as chunks:
        for chunk in chunks:
            assert_chat_chunk(chunk.to_dict())
            result.chunks.append(chunk)
    return result


def complete(client: openai.OpenAI, text: str, **kwargs: Any):
    kwargs.setdefault("model", MODEL)
    return client.chat.completions.create(messages=user(text), **kwargs)


def test_slow_stream_sends_one_token_per_content_chunk(client: openai.OpenAI) -> None:
    result = stream(client, "tell me slowly")
    assert result.content_pieces == ["one", " two", " three", " four", " five"]
    assert result.finish_reasons == ["stop"]
    assert result.headers["X-Emulator-Rule"] == "slow-stream"


def test_stream_check_gets_the_stream_only_rule(client: openai.OpenAI) -> None:
    result = stream(client, "stream check")
    assert result.content == "You are streaming."
    assert result.content_pieces == ["You are", " streaming", "."]  # chunk_tokens: 2
    assert result.headers["X-Emulator-Rule"] == "streaming-only"


def test_streamed_greeting_matches_the_non_streamed_one(client: openai.OpenAI) -> None:
    streamed = stream(client, "hello stream")
    whole = complete(client, "hello stream")
    assert streamed.content == whole.choices[0].message.content == "Hi hello stream! How can I help?"
    assert streamed.finish_reasons == [whole.choices[0].finish_reason]


def test_stream_chunks_share_id_created_and_model_and_match_the_header(client: openai.OpenAI) -> None:
    result = stream(client, "hello ids")
    assert len({(c.id, c.created, c.model) for c in result.chunks}) == 1
    assert result.chunks[0].id == result.headers["x-generation-id"]
    assert all(c.object == "chat.completion.chunk" for c in result.chunks)


def test_first_chunk_carries_the_assistant_role(client: openai.OpenAI) -> None:
    result = stream(client, "hello role")
    assert result.chunks[0].choices[0].delta.role == "assistant"


def test_streamed_refusal(client: openai.OpenAI) -> None:
    result = stream(client, "the password please")
    assert result.refusal == "I can't help with that."
    assert result.content == ""
    assert result.finish_reasons == ["content_filter"]


def test_streamed_reply_sequence(client: openai.OpenAI) -> None:
    first, second = stream(client, "retry me"), stream(client, "retry me")
    assert (first.content, first.finish_reasons) == ("first", ["stop"])
    assert (second.content, second.finish_reasons) == ("second", ["length"])


def test_header_routed_stream_reports_the_canary_model_on_every_chunk(client: openai.OpenAI) -> None:
    result = stream(client, "which build?", extra_headers={"X-Test-Case": "canary"})
    assert {c.model for c in result.chunks} == {"openai/gpt-5-canary"}
    assert result.content == "Canary build answering."


def test_include_usage_adds_a_final_usage_chunk(client: openai.OpenAI) -> None:
    result = stream(client, "hello usage", stream_options={"include_usage": True})
    last = result.chunks[-1]
    assert last.choices == []
    assert last.usage is not None and last.usage.completion_tokens > 0
    assert all(c.usage is None for c in result.chunks[:-1])
    whole = complete(client, "hello usage")
    assert last.usage == whole.usage


def test_metadata_usage_override_reaches_the_stream(client: openai.OpenAI) -> None:
    result = stream(client, "bill me", metadata={"suite": "billing"}, stream_options={"include_usage": True})
    usage = result.chunks[-1].usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (1000, 20, 1020)
    assert usage.prompt_tokens_details.cached_tokens == 600
    assert {c.service_tier for c in result.chunks} == {"default"}


def test_zenmux_usage_include_adds_a_final_usage_chunk(client: openai.OpenAI) -> None:
    result = stream(client, "hello zenmux usage", extra_body={"usage": {"include": True}})
    assert result.chunks[-1].choices == []
    assert result.chunks[-1].usage is not None


def test_without_include_usage_no_chunk_has_usage(client: openai.OpenAI) -> None:
    result = stream(client, "hello no usage")
    assert all(c.usage is None for c in result.chunks)
    assert all(c.choices for c in result.chunks)


def test_default_reply_streams_the_same_text_as_json(client: openai.OpenAI) -> None:
    streamed = stream(client, "an unscripted streamed question")
    whole = complete(client, "an unscripted streamed question")
    assert streamed.content and streamed.content == whole.choices[0].message.content
    assert "X-Emulator-Rule" not in streamed.headers
