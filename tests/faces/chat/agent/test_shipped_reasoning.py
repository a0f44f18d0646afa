"""scenarios/reasoning.yaml: the gpt5-meaning-of-life rule, a reasoning summary plus an encrypted
block in openai-responses-v1 format, streamed and not, the same reasoning both ways."""

from __future__ import annotations

import openai

from tests.conftest import SHIPPED
from tests.faces.chat.agent.helpers import (
    ANTHROPIC,
    GPT5,
    RULE_HEADER,
    accumulate,
    as_streamed,
    deltas,
    merge_details,
    sdk_chunks,
)
from tests.faces.chat.contract.helpers import post
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from tests.support.shipped import load_paths
from zenmux_emulator.foundation.signatures import Signer

FILE = SHIPPED / "reasoning.yaml"
COVERED = {"gpt5-meaning-of-life"}

QUESTION = [{"role": "user", "content": "What is the meaning of life?"}]
REASONING = (
    "**Considering the meaning of life** The question is philosophical; I should present several "
    "perspectives and a practical way to find meaning."
)
CONTENT = (
    "There isn't a single, objective answer: most people build meaning from relationships, growth and contribution."
)
FORMAT = "openai-responses-v1"


def test_every_rule_of_reasoning_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == COVERED


def check_openai_details(details: list[dict], reasoning: str, signer: Signer) -> None:
    summary, encrypted = details
    assert summary == {"type": "reasoning.summary", "summary": reasoning, "format": FORMAT, "index": "0"}
    assert set(encrypted) == {"id", "type", "data", "format", "index"}
    assert encrypted["type"] == "reasoning.encrypted"
    assert encrypted["id"].startswith("rs_")
    assert encrypted["data"].startswith("gAAAAA")
    assert encrypted["format"] == FORMAT and encrypted["index"] == "0"
    assert signer.check_encrypted(encrypted["id"], encrypted["data"])


def test_gpt5_returns_a_summary_and_an_encrypted_block(shipped, client: openai.OpenAI):
    # the rule scripts reasoning: it comes even though the request does not ask for any
    raw = client.chat.completions.with_raw_response.create(model=GPT5, messages=QUESTION)
    assert raw.headers.get(RULE_HEADER) == "gpt5-meaning-of-life"
    completion = raw.parse()
    assert_chat_completion(completion.model_dump(exclude_unset=True))
    assert completion.service_tier == "default"
    message = completion.choices[0].message
    assert message.content == CONTENT
    assert completion.choices[0].finish_reason == "stop"
    dumped = message.model_dump()
    assert dumped["reasoning"] == REASONING
    check_openai_details(
        dumped["reasoning_details"], REASONING, Signer.from_settings(shipped.state.settings.seed, None)
    )
    assert completion.usage.completion_tokens_details.reasoning_tokens > 0
    assert completion.usage.completion_tokens > completion.usage.completion_tokens_details.reasoning_tokens


def test_gpt5_is_deterministic(shipped, session):
    one = post(shipped, {"model": GPT5, "messages": QUESTION}, session=session).json()
    two = post(shipped, {"model": GPT5, "messages": QUESTION}, session=session + "-two").json()
    assert one["choices"] == two["choices"] and one["usage"] == two["usage"]


def test_gpt5_streams_the_summary_then_the_encrypted_block_then_the_content(shipped, session):
    plain = post(shipped, {"model": GPT5, "messages": QUESTION}, session=session).json()
    response = post(
        shipped,
        {"model": GPT5, "messages": QUESTION, "stream": True, "stream_options": {"include_usage": True}},
        session=session,
    )
    assert response.headers.get(RULE_HEADER) == "gpt5-meaning-of-life"
    chunks = response.sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
        assert chunk["service_tier"] == "default"
    steps = deltas(chunks)
    assert steps[0]["role"] == "assistant"
    reasoning_steps = [i for i, d in enumerate(steps) if "reasoning_details" in d]
    content_steps = [i for i, d in enumerate(steps) if d.get("content")]
    assert reasoning_steps == list(range(1, 1 + len(reasoning_steps)))
    assert max(reasoning_steps) < min(content_steps)
    *pieces, closing = [steps[i] for i in reasoning_steps]
    assert len(pieces) > 1
    for piece in pieces:
        [fragment] = piece["reasoning_details"]
        # streamed, a block's index is its position (an integer the SDK's stream helper can merge by)
        assert fragment == {"type": "reasoning.summary", "format": FORMAT, "index": 0, "summary": piece["reasoning"]}
        assert piece["reasoning_content"] == piece["reasoning"]
    assert closing["reasoning"] is None
    [encrypted] = closing["reasoning_details"]
    details = plain["choices"][0]["message"]["reasoning_details"]
    assert encrypted == {**details[1], "index": 1}
    message = accumulate(chunks)
    assert message["reasoning"] == plain["choices"][0]["message"]["reasoning"] == REASONING
    assert message["reasoning_details"] == as_streamed(details)
    assert message["content"] == CONTENT
    assert chunks[-1]["usage"] == plain["usage"]


def test_gpt5_streamed_through_the_sdk_reassembles_the_same_reasoning(client: openai.OpenAI):
    plain = client.chat.completions.create(model=GPT5, messages=QUESTION).choices[0].message.model_dump()
    stream = client.chat.completions.create(model=GPT5, messages=QUESTION, stream=True)
    chunks = sdk_chunks(stream)
    reasoning = "".join((c["choices"][0]["delta"].get("reasoning") or "") for c in chunks if c["choices"])
    assert reasoning == plain["reasoning"]
    fragments = [f for c in chunks if c["choices"] for f in c["choices"][0]["delta"].get("reasoning_details") or []]
    assert merge_details(fragments) == as_streamed(plain["reasoning_details"])


async def test_gpt5_async_streamed_and_not(aclient: openai.AsyncOpenAI):
    plain = (await aclient.chat.completions.create(model=GPT5, messages=QUESTION)).choices[0].message
    assert plain.model_extra["reasoning"] == REASONING
    stream = await aclient.chat.completions.create(model=GPT5, messages=QUESTION, stream=True)
    message = accumulate([chunk.to_dict() async for chunk in stream])
    assert message["reasoning"] == REASONING
    assert message["reasoning_details"] == as_streamed(plain.model_extra["reasoning_details"])
    assert message["content"] == plain.content == CONTENT


def test_gpt5_matches_gpt5_variants_only(shipped, session):
    assert (
        post(shipped, {"model": "openai/gpt-5-codex", "messages": QUESTION}, session=session).headers.get(RULE_HEADER)
        == "gpt5-meaning-of-life"
    )
    assert (
        post(shipped, {"model": ANTHROPIC, "messages": QUESTION}, session=session).headers.get(RULE_HEADER)
        != "gpt5-meaning-of-life"
    )


def test_gpt5_reasoning_disabled_or_effort_none_suppresses_the_scripted_reasoning(client: openai.OpenAI):
    for kwargs in (
        {"extra_body": {"reasoning": {"enabled": False}}},
        {"reasoning_effort": "none"},
        {"extra_body": {"reasoning_effort": "none"}},
    ):
        completion = client.chat.completions.create(model=GPT5, messages=QUESTION, **kwargs)
        dumped = completion.choices[0].message.model_dump()
        assert dumped.get("reasoning") is None, kwargs
        assert dumped.get("reasoning_details") is None, kwargs
        assert completion.choices[0].message.content == CONTENT
        assert completion.usage.completion_tokens_details.reasoning_tokens == 0, kwargs


def test_gpt5_reasoning_excluded_still_counts_reasoning_tokens(shipped, session):
    body = {"model": GPT5, "messages": QUESTION, "reasoning": {"exclude": True}}
    plain = post(shipped, body, session=session).json()
    message = plain["choices"][0]["message"]
    assert "reasoning" not in message and "reasoning_details" not in message
    assert message["content"] == CONTENT
    assert plain["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    chunks = (
        post(shipped, {**body, "stream": True, "stream_options": {"include_usage": True}}, session=session).sse().chunks
    )
    assert not any("reasoning" in d or "reasoning_details" in d for d in deltas(chunks))
    assert chunks[-1]["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    assert accumulate(chunks)["content"] == CONTENT
