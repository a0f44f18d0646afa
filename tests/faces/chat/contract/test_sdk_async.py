"""The official openai SDK (async) against the shipped rules, including concurrent requests."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import openai
import pytest

from tests.conftest import API_KEY
from tests.faces.chat.contract.helpers import HEX32, MODEL, SESSION_HEADER
from tests.support.bodies import user
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from zenmux_emulator.pytest_plugin.server import EmulatorServer


async def create(client: openai.AsyncOpenAI, text: str, **kwargs: Any):
    """(parsed completion, headers) for one user message; the raw body is schema-checked."""
    kwargs.setdefault("model", MODEL)
    raw = await client.chat.completions.with_raw_response.create(messages=user(text), **kwargs)
    assert raw.status_code == 200
    assert_chat_completion(json.loads(raw.content))
    return raw.parse(), raw.headers


async def content(client: openai.AsyncOpenAI, text: str, **kwargs: Any) -> str | None:
    completion, _ = await create(client, text, **kwargs)
    return completion.choices[0].message.content


def async_client(server: EmulatorServer, session: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=server.base_url, api_key=API_KEY, max_retries=0, default_headers={SESSION_HEADER: session}
    )


async def test_greeting_echoes_the_last_user_message(aclient: openai.AsyncOpenAI) -> None:
    completion, headers = await create(aclient, "hello from asyncio")
    assert completion.choices[0].message.content == "Hi hello from asyncio! How can I help?"
    assert headers["X-Emulator-Rule"] == "greeting"
    assert headers["x-generation-id"] == completion.id
    assert re.fullmatch(HEX32, headers["X-ZenMux-RequestId"])


async def test_flaky_then_fine_sequence(aclient: openai.AsyncOpenAI) -> None:
    answers = [(await create(aclient, "retry me"))[0] for _ in range(3)]
    assert [a.choices[0].message.content for a in answers] == ["first", "second", "second"]
    assert [a.choices[0].finish_reason for a in answers] == ["stop", "length", "length"]


async def test_refusal_rule(aclient: openai.AsyncOpenAI) -> None:
    completion, _ = await create(aclient, "share the password")
    assert completion.choices[0].message.refusal == "I can't help with that."
    assert completion.choices[0].message.content is None
    assert completion.choices[0].finish_reason == "content_filter"


async def test_metadata_rule_usage_override(aclient: openai.AsyncOpenAI) -> None:
    completion, _ = await create(aclient, "bill me", metadata={"suite": "billing"})
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (1000, 20, 1020)
    assert usage.prompt_tokens_details.cached_tokens == 600
    assert completion.service_tier == "default"


async def test_header_routed_rule(aclient: openai.AsyncOpenAI) -> None:
    completion, _ = await create(aclient, "who answers?", extra_headers={"X-Test-Case": "canary"})
    assert completion.model == "openai/gpt-5-canary"
    assert completion.choices[0].message.content == "Canary build answering."


async def test_default_reply_is_deterministic(aclient: openai.AsyncOpenAI) -> None:
    first = await content(aclient, "an async question nobody scripted")
    second = await content(aclient, "an async question nobody scripted")
    other = await content(aclient, "another async question nobody scripted")
    assert first and first == second
    assert other and other != first


async def test_concurrent_requests_each_get_their_own_answer(aclient: openai.AsyncOpenAI) -> None:
    names = [f"caller number {i}" for i in range(12)]
    answers = await asyncio.gather(*(content(aclient, f"hello {name}") for name in names))
    assert answers == [f"Hi hello {name}! How can I help?" for name in names]


async def test_concurrent_requests_in_one_session_consume_the_sequence_once(aclient: openai.AsyncOpenAI) -> None:
    answers = await asyncio.gather(*(content(aclient, "retry me") for _ in range(6)))
    assert sorted(answers) == ["first"] + ["second"] * 5


async def test_concurrent_sessions_have_independent_sequences(shipped: EmulatorServer, session: str) -> None:
    clients = [async_client(shipped, f"{session}-{i}") for i in range(4)]
    try:
        answers = await asyncio.gather(*(content(c, "retry me") for c in clients))
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    assert answers == ["first"] * 4


async def test_async_stream_of_slow_stream(aclient: openai.AsyncOpenAI) -> None:
    stream = await aclient.chat.completions.create(model=MODEL, messages=user("say it slowly"), stream=True)
    pieces, reasons = [], []
    async with stream:
        async for chunk in stream:
            assert_chat_chunk(chunk.to_dict())
            if chunk.choices:
                pieces.append(chunk.choices[0].delta.content)
                reasons.append(chunk.choices[0].finish_reason)
    assert [p for p in pieces if p] == ["one", " two", " three", " four", " five"]
    assert [r for r in reasons if r] == ["stop"]


async def test_async_errors_raise_sdk_exceptions(aclient: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await aclient.chat.completions.create(model=MODEL, messages=user("hi"), n=2)
    assert caught.value.status_code == 400
    assert caught.value.response.json() == {
        "error": {"code": "400", "type": "invalid_params", "message": "Parameter n grater than 1 is not supported"}
    }
