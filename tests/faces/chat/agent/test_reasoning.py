"""Reasoning over a scenario of our own: the ways of asking for it, the shape of each model family,
`reasoning_shape` overrides, scripted reasoning, exclude, effort and budgets, and streaming."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.faces.chat.agent.helpers import ANTHROPIC, GEMINI, GPT5, accumulate, as_streamed, deltas, serve
from tests.faces.chat.contract.helpers import post
from tests.support.clients import sdk
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.pytest_plugin.server import EmulatorServer

ANSWER = "A plain answer of several words that a small token limit is sure to cut short before the end."
YAML = f"""
rules:
  - name: plain-answer
    match: {{last_user: {{contains: "plain question"}}}}
    reply: {{content: "{ANSWER}"}}
  - name: scripted-thinking
    match: {{last_user: {{contains: "scripted thinking"}}}}
    reply: {{content: "done", reasoning: "I was told to think about {{{{ request.last_user }}}}."}}
  - name: shaped-google
    match: {{last_user: {{contains: "shape google"}}}}
    reply: {{content: "ok", reasoning: "Thinking in the google shape.", reasoning_shape: google}}
  - name: shaped-openai
    match: {{last_user: {{contains: "shape openai"}}}}
    reply: {{content: "ok", reasoning: "Thinking in the openai shape.", reasoning_shape: openai}}
  - name: shaped-anthropic
    match: {{last_user: {{contains: "shape anthropic"}}}}
    reply: {{content: "ok", reasoning: "Thinking in the anthropic shape.", reasoning_shape: anthropic}}
"""
PLAIN = [{"role": "user", "content": "a plain question"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with serve(Path(tmp_path_factory.mktemp("reasoning")), YAML) as s:
        yield s


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as c:
        yield c


def signer(server: EmulatorServer) -> Signer:
    return Signer.from_settings(server.state.settings.seed, server.state.settings.reasoning_secret)


def body(model: str = ANTHROPIC, messages: list[dict[str, Any]] = PLAIN, **fields: Any) -> dict[str, Any]:
    return {"model": model, "messages": messages, **fields}


def reasoning_tokens(response_json: dict[str, Any]) -> int:
    return response_json["usage"]["completion_tokens_details"]["reasoning_tokens"]


def check_shape(family: str, message: dict[str, Any], server: EmulatorServer) -> None:
    text = message["reasoning"]
    assert isinstance(text, str) and text
    details = message["reasoning_details"]
    if family == "anthropic":
        [block] = details
        assert set(block) == {"type", "text", "signature", "format", "index"}
        assert block["type"] == "reasoning.text" and block["text"] == text
        assert block["format"] == "anthropic-claude-v1"
        assert block["index"] == 0 and isinstance(block["index"], int)
        assert signer(server).verify("anthropic", 0, text, block["signature"])
    elif family == "google":
        [block] = details
        assert set(block) == {"type", "text", "signature", "index"}  # no format
        assert block["type"] == "reasoning.text" and block["text"] == text
        assert signer(server).verify("google", 0, text, block["signature"])
        assert not signer(server).verify("anthropic", 0, text, block["signature"])
    else:
        summary, encrypted = details
        assert summary == {"type": "reasoning.summary", "summary": text, "format": "openai-responses-v1", "index": "0"}
        assert encrypted["type"] == "reasoning.encrypted" and encrypted["id"].startswith("rs_")
        assert encrypted["data"].startswith("gAAAAA") and encrypted["format"] == "openai-responses-v1"
        assert encrypted["index"] == "0"
        assert signer(server).check_encrypted(encrypted["id"], encrypted["data"])


# --- asking for reasoning -------------------------------------------------------------------------

ASKS = {
    "reasoning.enabled": {"extra_body": {"reasoning": {"enabled": True}}},
    "reasoning.effort": {"extra_body": {"reasoning": {"effort": "low"}}},
    "reasoning.max_tokens": {"extra_body": {"reasoning": {"max_tokens": 3000}}},
    "reasoning_effort kwarg": {"reasoning_effort": "high"},
    "reasoning_effort extra_body": {"extra_body": {"reasoning_effort": "medium"}},
}


@pytest.mark.parametrize("way", list(ASKS))
def test_each_way_of_asking_yields_reasoning(client: openai.OpenAI, way: str):
    completion = client.chat.completions.create(model=ANTHROPIC, messages=PLAIN, **ASKS[way])
    dumped = completion.choices[0].message.model_dump()
    assert dumped["reasoning"] and dumped["reasoning_details"], way
    assert completion.choices[0].message.content == ANSWER
    assert completion.usage.completion_tokens_details.reasoning_tokens > 0


def test_no_reasoning_unless_asked_or_scripted(server, session, client: openai.OpenAI):
    completion = client.chat.completions.create(model=ANTHROPIC, messages=PLAIN)
    assert "reasoning" not in (completion.choices[0].message.model_extra or {})
    assert completion.usage.completion_tokens_details.reasoning_tokens == 0
    message = post(server, body(), session=session).json()["choices"][0]["message"]
    assert "reasoning" not in message and "reasoning_details" not in message


@pytest.mark.parametrize(
    ("model", "family"),
    [
        (ANTHROPIC, "anthropic"),
        ("anthropic/claude-opus-4.5", "anthropic"),
        (GPT5, "openai"),
        ("openai/gpt-5.3-codex", "openai"),
        (GEMINI, "google"),
    ],
)
def test_the_shape_follows_the_model_family(server, session, model: str, family: str):
    response = post(server, body(model, reasoning={"enabled": True}), session=session)
    assert response.status == 200
    assert_chat_completion(response.json())
    check_shape(family, response.json()["choices"][0]["message"], server)


@pytest.mark.parametrize(
    ("prompt", "family"), [("shape google", "google"), ("shape openai", "openai"), ("shape anthropic", "anthropic")]
)
@pytest.mark.parametrize("model", [ANTHROPIC, GPT5, GEMINI])
def test_reasoning_shape_in_the_rule_overrides_the_family(server, session, prompt: str, family: str, model: str):
    message = post(server, body(model, [{"role": "user", "content": prompt}]), session=session).json()["choices"][0][
        "message"
    ]
    check_shape(family, message, server)


def test_scripted_reasoning_comes_without_asking_and_is_a_template(server, session):
    response = post(server, body(GPT5, [{"role": "user", "content": "scripted thinking now"}]), session=session).json()
    message = response["choices"][0]["message"]
    assert message["reasoning"] == "I was told to think about scripted thinking now."
    check_shape("openai", message, server)
    assert reasoning_tokens(response) > 0


@pytest.mark.parametrize(
    "off", [{"reasoning": {"enabled": False}}, {"reasoning_effort": "none"}, {"reasoning": {"effort": "none"}}]
)
def test_disabled_reasoning_wins_over_scripted_reasoning(server, session, off: dict[str, Any]):
    response = post(
        server, body(ANTHROPIC, [{"role": "user", "content": "scripted thinking"}], **off), session=session
    ).json()
    message = response["choices"][0]["message"]
    assert "reasoning" not in message and "reasoning_details" not in message
    assert message["content"] == "done"
    assert reasoning_tokens(response) == 0


@pytest.mark.parametrize("model", [ANTHROPIC, GPT5, GEMINI])
def test_exclude_removes_reasoning_but_still_counts_it(server, session, model: str):
    response = post(server, body(model, reasoning={"enabled": True, "exclude": True}), session=session).json()
    message = response["choices"][0]["message"]
    assert "reasoning" not in message and "reasoning_details" not in message
    assert message["content"] == ANSWER
    assert reasoning_tokens(response) > 0
    chunks = (
        post(
            server,
            body(
                model, reasoning={"enabled": True, "exclude": True}, stream=True, stream_options={"include_usage": True}
            ),
            session=session,
        )
        .sse()
        .chunks
    )
    assert not any("reasoning" in d or "reasoning_details" in d for d in deltas(chunks))
    assert chunks[-1]["usage"]["completion_tokens_details"]["reasoning_tokens"] == reasoning_tokens(response)


# --- token counts ---------------------------------------------------------------------------------


def test_effort_scales_reasoning_tokens_deterministically(server, session):
    counts = {}
    for effort in ("low", "medium", "high"):
        first = reasoning_tokens(post(server, body(reasoning={"effort": effort}), session=session).json())
        again = reasoning_tokens(post(server, body(reasoning={"effort": effort}), session=session).json())
        assert first == again
        counts[effort] = first
    assert 0 < counts["low"] < counts["medium"] < counts["high"]
    assert reasoning_tokens(post(server, body(reasoning_effort="low"), session=session).json()) == counts["low"]


def test_max_tokens_sets_the_reasoning_tokens(server, session):
    for budget in (777, 4321):
        response = post(server, body(reasoning={"max_tokens": budget}), session=session).json()
        assert reasoning_tokens(response) == budget
        assert response["usage"]["completion_tokens"] == budget + tokens.count(ANSWER)


def test_reasoning_counts_toward_max_completion_tokens(server, session):
    limit = 60
    without = post(server, body(max_completion_tokens=limit), session=session).json()
    assert without["choices"][0]["finish_reason"] == "stop"
    assert without["choices"][0]["message"]["content"] == ANSWER
    response = post(server, body(max_completion_tokens=limit, reasoning={"effort": "high"}), session=session).json()
    choice = response["choices"][0]
    assert choice["finish_reason"] == "length"
    content = choice["message"]["content"]
    assert content and ANSWER.startswith(content) and len(content) < len(ANSWER)
    spent = reasoning_tokens(response)
    assert spent == int(limit * 0.8)  # ZenMux gives high effort 80 % of max_completion_tokens
    assert spent + tokens.count(content) <= limit
    assert response["usage"]["completion_tokens"] <= limit
    assert choice["message"]["reasoning"]


def test_a_limit_below_the_reasoning_text_still_keeps_the_effort_share(server, session):
    # 25 tokens at high effort: reasoning gets 80 % (20), content the other 5 (contract §4.1). The
    # reasoning text shown should not count more tokens than the usage reports for it.
    limit = 25
    response = post(server, body(max_completion_tokens=limit, reasoning={"effort": "high"}), session=session).json()
    choice = response["choices"][0]
    spent = reasoning_tokens(response)
    assert spent == int(limit * 0.8), spent
    assert choice["message"]["content"], "nothing left for content"
    assert tokens.count(choice["message"]["reasoning"]) <= spent
    assert response["usage"]["completion_tokens"] <= limit


def test_reasoning_tokens_are_the_same_streamed(server, session):
    plain = post(server, body(reasoning={"effort": "low"}), session=session).json()
    chunks = (
        post(
            server,
            body(reasoning={"effort": "low"}, stream=True, stream_options={"include_usage": True}),
            session=session,
        )
        .sse()
        .chunks
    )
    assert chunks[-1]["usage"] == plain["usage"]


# --- streaming by family ----------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "family"), [(ANTHROPIC, "anthropic"), (GPT5, "openai"), (GEMINI, "google")])
def test_streamed_reasoning_comes_first_and_reassembles_to_the_message(server, session, model: str, family: str):
    plain = post(server, body(model, reasoning={"enabled": True}), session=session).json()["choices"][0]["message"]
    chunks = post(server, body(model, reasoning={"enabled": True}, stream=True), session=session).sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    steps = deltas(chunks)
    reasoning_steps = [i for i, d in enumerate(steps) if "reasoning_details" in d]
    content_steps = [i for i, d in enumerate(steps) if d.get("content")]
    assert reasoning_steps == list(range(1, 1 + len(reasoning_steps)))
    assert max(reasoning_steps) < min(content_steps)
    *pieces, closing = [steps[i] for i in reasoning_steps]
    for piece in pieces:
        [fragment] = piece["reasoning_details"]
        key = "summary" if family == "openai" else "text"
        assert fragment[key] == piece["reasoning"]
        assert "signature" not in fragment and fragment["type"] != "reasoning.encrypted"
        assert ("format" in fragment) == (family != "google")
    assert closing["reasoning"] is None
    if family == "openai":
        assert [b["type"] for b in closing["reasoning_details"]] == ["reasoning.encrypted"]
    else:
        [signed] = closing["reasoning_details"]
        assert set(signed) - {"type", "format", "index"} == {"signature"}
    message = accumulate(chunks)
    assert message["reasoning"] == plain["reasoning"]
    assert message["reasoning_details"] == as_streamed(plain["reasoning_details"])
    assert message["content"] == plain["content"] == ANSWER


def test_the_official_sdk_stream_carries_reasoning_in_delta_extras(client: openai.OpenAI):
    plain = client.chat.completions.create(model=GEMINI, messages=PLAIN, reasoning_effort="low")
    stream = client.chat.completions.create(model=GEMINI, messages=PLAIN, reasoning_effort="low", stream=True)
    text = "".join(
        (chunk.choices[0].delta.model_extra or {}).get("reasoning") or "" for chunk in stream if chunk.choices
    )
    assert text == plain.choices[0].message.model_extra["reasoning"]
