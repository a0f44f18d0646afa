"""Generation limits and extras: `max_completion_tokens`, `stop` and `logprobs`, streamed and not."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.faces.chat.contract.helpers import MODEL, chat, content_of, finish_reasons, post
from tests.support.bodies import user
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SLOW = "say it slowly"  # the shipped slow-stream rule: "one two three four five", one token per chunk


def as_json(server: EmulatorServer, session: str, text: str, **fields: Any) -> dict[str, Any]:
    response = post(server, chat(text, **fields), session=session)
    assert response.status == 200, response.body
    body = response.json()
    assert_chat_completion(body)
    return body


def as_stream(server: EmulatorServer, session: str, text: str, **fields: Any) -> list[dict[str, Any]]:
    response = post(server, chat(text, stream=True, stream_options={"include_usage": True}, **fields), session=session)
    assert response.status == 200, response.body
    chunks = response.sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    return chunks


def both(
    server: EmulatorServer, session: str, text: str, **fields: Any
) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """(content, finish_reason, completion_tokens) as JSON and as a stream."""
    body = as_json(server, session + "-json", text, **fields)
    chunks = as_stream(server, session + "-stream", text, **fields)
    choice = body["choices"][0]
    (reason,) = finish_reasons(chunks)
    return (
        (choice["message"]["content"], choice["finish_reason"], body["usage"]["completion_tokens"]),
        (content_of(chunks), reason, chunks[-1]["usage"]["completion_tokens"]),
    )


# --- max_completion_tokens --------------------------------------------------------------------


def test_max_completion_tokens_truncates_with_length(shipped: EmulatorServer, session: str) -> None:
    json_side, stream_side = both(shipped, session, SLOW, max_completion_tokens=3)
    assert json_side == ("one two three", "length", 3)
    assert stream_side == json_side


def test_max_completion_tokens_of_one(shipped: EmulatorServer, session: str) -> None:
    json_side, stream_side = both(shipped, session, SLOW, max_completion_tokens=1)
    assert json_side == stream_side == ("one", "length", 1)


def test_max_completion_tokens_at_or_above_the_reply_changes_nothing(shipped: EmulatorServer, session: str) -> None:
    for budget in (5, 50):
        json_side, stream_side = both(shipped, f"{session}-{budget}", SLOW, max_completion_tokens=budget)
        assert json_side == stream_side == ("one two three four five", "stop", 5)


def test_max_completion_tokens_truncates_the_default_reply(shipped: EmulatorServer, session: str) -> None:
    full = as_json(shipped, session, "an unscripted long answer please")["choices"][0]["message"]["content"]
    cut = as_json(shipped, session, "an unscripted long answer please", max_completion_tokens=4)
    assert cut["choices"][0]["finish_reason"] == "length"
    assert cut["usage"]["completion_tokens"] == 4
    text = cut["choices"][0]["message"]["content"]
    assert text and full.startswith(text) and len(text) < len(full)


def test_a_budget_that_fits_keeps_the_scripted_finish_reason(shipped: EmulatorServer, session: str) -> None:
    # flaky-then-fine: "first" (stop), then "second" (scripted length); one token fits either.
    replies = [as_json(shipped, session, "retry me", max_completion_tokens=1)["choices"][0] for _ in range(2)]
    assert [(r["message"]["content"], r["finish_reason"]) for r in replies] == [("first", "stop"), ("second", "length")]


def test_sdk_sees_the_truncation(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model=MODEL, messages=user(SLOW), max_completion_tokens=3)
    assert completion.choices[0].message.content == "one two three"
    assert completion.choices[0].finish_reason == "length"
    with client.chat.completions.create(
        model=MODEL, messages=user(SLOW), max_completion_tokens=3, stream=True
    ) as stream:
        chunks = [c for c in stream if c.choices]
    assert [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content] == ["one", " two", " three"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason] == ["length"]


# --- stop -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop", "expected"),
    [
        (["three"], "one two "),
        ("three", "one two "),
        (["four", "two"], "one "),
        (["e f"], "one two three four five"[: "one two three four five".index("e f")]),
        (["one"], ""),
    ],
    ids=["list", "string", "earliest-wins", "spanning-tokens", "at-the-start"],
)
def test_stop_cuts_before_the_sequence(shipped: EmulatorServer, session: str, stop: Any, expected: str) -> None:
    json_side, stream_side = both(shipped, session, SLOW, stop=stop)
    assert json_side[:2] == (expected, "stop")
    assert stream_side == json_side


def test_stop_absent_from_the_reply_changes_nothing(shipped: EmulatorServer, session: str) -> None:
    json_side, stream_side = both(shipped, session, SLOW, stop=["seven", "eight"])
    assert json_side == stream_side == ("one two three four five", "stop", 5)


def test_stop_then_token_budget(shipped: EmulatorServer, session: str) -> None:
    json_side, stream_side = both(shipped, session, SLOW, stop=["five"], max_completion_tokens=2)
    assert json_side == stream_side == ("one two", "length", 2)


def test_sdk_sees_the_stop(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model=MODEL, messages=user(SLOW), stop=["three"])
    assert completion.choices[0].message.content == "one two "
    assert completion.choices[0].finish_reason == "stop"


# --- logprobs ---------------------------------------------------------------------------------


def check_logprob_entries(entries: list[dict[str, Any]], text: str, top: int) -> None:
    """One entry per token of `text`, each with `top` alternatives, bytes matching, most likely first."""
    assert "".join(e["token"] for e in entries) == text
    for entry in entries:
        assert entry["bytes"] == list(entry["token"].encode())
        assert entry["logprob"] <= 0
        assert len(entry["top_logprobs"]) == top
        values = [alt["logprob"] for alt in entry["top_logprobs"]]
        assert values == sorted(values, reverse=True)
        assert all(alt["bytes"] == list(alt["token"].encode()) for alt in entry["top_logprobs"])
        assert len({alt["token"] for alt in entry["top_logprobs"]}) == top


def streamed_logprobs(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    entries = []
    for chunk in chunks:
        if chunk["choices"] and chunk["choices"][0]["logprobs"]:
            entries.extend(chunk["choices"][0]["logprobs"]["content"] or [])
    return entries


@pytest.mark.parametrize(
    "text", [SLOW, "hello logprobs", "an unscripted answer with logprobs"], ids=["slow-stream", "greeting", "default"]
)
def test_logprobs_have_one_entry_per_token_and_top_alternatives(
    shipped: EmulatorServer, session: str, text: str
) -> None:
    body = as_json(shipped, session, text, logprobs=True, top_logprobs=2)
    choice = body["choices"][0]
    entries = choice["logprobs"]["content"]
    usage = body["usage"]
    assert len(entries) == usage["completion_tokens"] - usage["completion_tokens_details"]["reasoning_tokens"]
    check_logprob_entries(entries, choice["message"]["content"], 2)


@pytest.mark.parametrize(
    "text",
    [SLOW, "stream check", "an unscripted answer with logprobs"],
    ids=["one-token-chunks", "two-token-chunks", "default"],
)
def test_streamed_logprobs_equal_the_json_logprobs(shipped: EmulatorServer, session: str, text: str) -> None:
    chunks = as_stream(shipped, session, text, logprobs=True, top_logprobs=2)
    entries = streamed_logprobs(chunks)
    check_logprob_entries(entries, content_of(chunks), 2)
    for chunk in chunks:
        if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
            piece = chunk["choices"][0]["delta"]["content"]
            assert "".join(e["token"] for e in chunk["choices"][0]["logprobs"]["content"]) == piece
    if text != "stream check":  # the stream-only rule has no JSON twin
        assert (
            entries
            == as_json(shipped, session + "-json", text, logprobs=True, top_logprobs=2)["choices"][0]["logprobs"][
                "content"
            ]
        )


def test_logprobs_follow_truncation(shipped: EmulatorServer, session: str) -> None:
    body = as_json(shipped, session, SLOW, logprobs=True, top_logprobs=2, max_completion_tokens=3)
    assert [e["token"] for e in body["choices"][0]["logprobs"]["content"]] == ["one", " two", " three"]
    chunks = as_stream(shipped, session, SLOW, logprobs=True, top_logprobs=2, max_completion_tokens=3)
    assert [e["token"] for e in streamed_logprobs(chunks)] == ["one", " two", " three"]


def test_top_logprobs_zero_gives_entries_without_alternatives(shipped: EmulatorServer, session: str) -> None:
    body = as_json(shipped, session, SLOW, logprobs=True, top_logprobs=0)
    entries = body["choices"][0]["logprobs"]["content"]
    assert len(entries) == 5
    assert all(e["top_logprobs"] == [] for e in entries)


def test_logprobs_are_null_unless_asked(shipped: EmulatorServer, session: str) -> None:
    assert as_json(shipped, session, SLOW)["choices"][0]["logprobs"] is None
    assert as_json(shipped, session, SLOW, logprobs=False)["choices"][0]["logprobs"] is None
    chunks = as_stream(shipped, session, SLOW)
    assert all(c["choices"][0]["logprobs"] is None for c in chunks if c["choices"])


def test_refusal_logprobs_cover_the_refusal(shipped: EmulatorServer, session: str) -> None:
    body = as_json(shipped, session, "the password", logprobs=True, top_logprobs=1)
    logprobs = body["choices"][0]["logprobs"]
    check_logprob_entries(logprobs["refusal"], "I can't help with that.", 1)
    assert not logprobs["content"]


def test_logprobs_are_deterministic(shipped: EmulatorServer, session: str) -> None:
    first = as_json(shipped, session + "-a", SLOW, logprobs=True, top_logprobs=3)["choices"][0]["logprobs"]
    again = as_json(shipped, session + "-b", SLOW, logprobs=True, top_logprobs=3)["choices"][0]["logprobs"]
    assert first == again


def test_sdk_parses_logprobs(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model=MODEL, messages=user(SLOW), logprobs=True, top_logprobs=2)
    entries = completion.choices[0].logprobs.content
    assert [e.token for e in entries] == ["one", " two", " three", " four", " five"]
    assert all(len(e.top_logprobs) == 2 and e.top_logprobs[0].logprob >= e.top_logprobs[1].logprob for e in entries)
    with client.chat.completions.create(
        model=MODEL, messages=user(SLOW), logprobs=True, top_logprobs=2, stream=True
    ) as stream:
        streamed = [
            e for c in stream if c.choices and c.choices[0].logprobs for e in c.choices[0].logprobs.content or []
        ]
    assert [e.token for e in streamed] == [e.token for e in entries]
    assert [e.logprob for e in streamed] == [e.logprob for e in entries]
