"""Record a session of real client code through `record`, then replay the same code on a fresh
emulator that has only the recorded folder: the answers must be the same, field for field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from tests.conftest import MakeServer
from tests.record.helpers import recorded, recorder, rule_for, serving, upstream
from tests.support.clients import API_KEY
from zenmux_emulator.cli.main import main
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

SONNET = "anthropic/claude-sonnet-4.5"
GPT = "openai/gpt-5"
SESSION = {SESSION_HEADER: "recorded-session"}
CHAT_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
ANTHROPIC_TOOL: Any = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
RESPONSES_TOOL: Any = {"type": "function", "name": "get_weather", "parameters": CHAT_TOOL["function"]["parameters"]}
THINKING: Any = {"type": "enabled", "budget_tokens": 2048}


def _openai(server: EmulatorServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0, default_headers=SESSION)


def _error(exc: openai.APIStatusError) -> dict[str, Any]:
    return {"status": exc.status_code, "body": exc.body, "retry_after": exc.response.headers.get("retry-after")}


def chat_session(server: EmulatorServer) -> dict[str, Any]:
    with _openai(server) as client:
        return chat_exchanges(client)


def chat_exchanges(client: openai.OpenAI) -> dict[str, Any]:
    """Every kind of exchange on chat completions, through the openai SDK."""
    seen: dict[str, Any] = {}
    plain = client.chat.completions.create(
        model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "a plain question"}]
    )
    seen["plain"] = [plain.choices[0].message.content, plain.choices[0].finish_reason, plain.usage.model_dump()]

    cited = client.chat.completions.create(
        model="openai/gpt-5.4-mini",
        messages=[{"role": "user", "content": "search the web for me"}],
        extra_body={"web_search_options": {}},
    )
    seen["citations"] = [
        cited.choices[0].message.content,
        [a.model_dump() for a in cited.choices[0].message.annotations or ()],
    ]
    assert seen["citations"][1]  # the upstream's unscripted answer cites sources

    pieces, finish, usage = [], None, None
    for chunk in client.chat.completions.create(
        model="openai/gpt-5.4-mini",
        stream=True,
        stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "please stream me"}],
    ):
        if chunk.choices:
            pieces.append(chunk.choices[0].delta.content)
            finish = chunk.choices[0].finish_reason or finish
        usage = chunk.usage.model_dump() if chunk.usage else usage
    seen["streamed"] = [pieces, finish, usage]

    question: Any = [{"role": "user", "content": "weather in Paris?"}]
    reason: Any = {"reasoning": {"enabled": True}}
    first = client.chat.completions.create(model=SONNET, messages=question, tools=[CHAT_TOOL], extra_body=reason)
    message = first.choices[0].message.model_dump(exclude_none=True)
    assert message["reasoning_details"][0]["signature"]
    history = [*question, message, {"role": "tool", "tool_call_id": message["tool_calls"][0]["id"], "content": "sunny"}]
    second = client.chat.completions.create(model=SONNET, messages=history, tools=[CHAT_TOOL], extra_body=reason)
    seen["tool loop"] = [
        message,
        first.choices[0].finish_reason,
        first.usage.model_dump(),
        second.choices[0].message.content,
        second.usage.model_dump(),
    ]
    edited = copy.deepcopy(history)
    edited[1]["reasoning_details"][0]["text"] += " (edited)"
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model=SONNET, messages=edited, tools=[CHAT_TOOL], extra_body=reason)
    seen["edited"] = refused.value.body

    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "rate limit me"}]
        )
    seen["429"] = _error(limited.value)

    received = []
    with pytest.raises(openai.APIError) as broken:
        for chunk in client.chat.completions.create(
            model="openai/gpt-5.4-mini", stream=True, messages=[{"role": "user", "content": "break the stream"}]
        ):
            received.append(chunk.choices[0].delta.content if chunk.choices else None)
    seen["broken stream"] = [received, broken.value.message]

    with pytest.raises(openai.InternalServerError) as unreachable:
        client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "hang up"}])
    seen["fault"] = _error(unreachable.value)

    seen["sequence"] = [
        client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "count for me"}]
        )
        .choices[0]
        .message.content
        for _ in range(3)
    ]
    return seen


def anthropic_session(server: EmulatorServer) -> dict[str, Any]:
    with anthropic.Anthropic(
        base_url=server.anthropic_url,
        api_key=API_KEY,
        max_retries=0,
        default_headers={"anthropic-version": "2023-06-01", **SESSION},
    ) as client:
        return anthropic_exchanges(client)


def anthropic_exchanges(client: anthropic.Anthropic) -> dict[str, Any]:
    """A streamed thinking + tool_use turn and its answer, through the anthropic SDK."""
    question: Any = [{"role": "user", "content": "weather in Paris, from claude?"}]
    with client.messages.stream(
        model=SONNET, max_tokens=4096, thinking=THINKING, tools=[ANTHROPIC_TOOL], messages=question
    ) as stream:
        first = stream.get_final_message()
    blocks = [b.model_dump(exclude_none=True) for b in first.content]
    call = blocks[1]
    history = [
        *question,
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "rainy"}]},
    ]
    second = client.messages.create(
        model=SONNET, max_tokens=4096, thinking=THINKING, tools=[ANTHROPIC_TOOL], messages=history
    )
    edited = copy.deepcopy(history)
    edited[1]["content"][0]["signature"] = edited[1]["content"][0]["signature"][:-6] + "AAAAAA"
    with pytest.raises(anthropic.APIStatusError) as refused:
        client.messages.create(
            model=SONNET, max_tokens=4096, thinking=THINKING, tools=[ANTHROPIC_TOOL], messages=edited
        )
    return {
        "first": [blocks, first.stop_reason, first.usage.model_dump()],
        "second": [[b.model_dump() for b in second.content], second.stop_reason, second.usage.model_dump()],
        "edited": [refused.value.status_code, refused.value.body],
    }


def responses_session(server: EmulatorServer) -> dict[str, Any]:
    with _openai(server) as client:
        return responses_exchanges(client)


def responses_exchanges(client: openai.OpenAI) -> dict[str, Any]:
    """Encrypted reasoning and a function call, then the answer, through the openai SDK's Responses."""
    asked: Any = {"reasoning": {"effort": "low", "summary": "auto"}, "include": ["reasoning.encrypted_content"]}
    first = client.responses.create(model=GPT, input="weather in Paris, responses?", tools=[RESPONSES_TOOL], **asked)
    reasoning, call = first.output
    history: Any = [
        {"role": "user", "content": "weather in Paris, responses?"},
        reasoning.model_dump(exclude_none=True),
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "windy"},
    ]
    second = client.responses.create(model=GPT, input=history, tools=[RESPONSES_TOOL], **asked)
    edited = copy.deepcopy(history)
    edited[1]["encrypted_content"] = edited[1]["encrypted_content"][:-8] + "AAAAAAAA"
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model=GPT, input=edited, tools=[RESPONSES_TOOL], **asked)
    return {
        "reasoning": reasoning.model_dump(exclude_none=True),
        "call": [call.call_id, call.name, call.arguments],
        "status": first.status,
        "usage": first.usage.model_dump() if first.usage else None,
        "answer": second.output_text,
        "edited": refused.value.body,
    }


def whole_session(server: EmulatorServer) -> dict[str, Any]:
    return {
        "chat": chat_session(server),
        "anthropic": anthropic_session(server),
        "responses": responses_session(server),
    }


def test_a_recorded_session_replays_identically(make_server: MakeServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    with recorder(upstream(make_server), out, record_errors=True) as proxy:
        live = whole_session(proxy)
        journal = proxy.state.journal.entries()
    assert any(e.recorded for e in journal) and all(e.recorded for e in journal if e.status == 200 and e.api)

    assert main(["validate", str(out)]) == 0
    with serving(out, strict=True) as replay:
        again = whole_session(replay)
    assert again == live

    # what made the replay the same, in the file: signatures verbatim, errors, pacing
    document = recorded(out)
    names = [rule["name"] for rule in document["rules"]]
    assert len(names) == len(set(names))
    signed = rule_for(out, "weather in Paris?")
    assert signed["match"]["turn"] == 0 and signed["match"]["tool_result"] is False
    assert signed["reply"]["reasoning_signature"] == live["chat"]["tool loop"][0]["reasoning_details"][0]["signature"]
    assert (
        live["responses"]["reasoning"]["encrypted_content"]
        == rule_for(out, "weather in Paris, responses?")["reply"]["reasoning_encrypted"]["data"]
    )
    assert rule_for(out, "rate limit me")["reply"] == {
        "error": {"status": 429, "type": "rate_limit", "message": "Slow down", "headers": {"Retry-After": "7"}}
    }
    assert rule_for(out, "hang up")["reply"]["error"]["status"] == 502
    assert rule_for(out, "break the stream")["reply"]["stream"]["fault"] == {
        "kind": "error",
        "after_chunks": 3,
        "code": "502",
        "message": "the provider went away",
    }
    assert [r["content"] for r in rule_for(out, "count for me")["replies"]] == ["one", "two", "two"]


def test_stream_pacing_is_recorded_and_served_as_recorded(make_server: MakeServer, tmp_path: Path) -> None:
    """The measured pacing is in the file (never below what the upstream waited), the replay serves
    those values, and the stream comes in as many chunks of the same size."""
    out = tmp_path / "recorded"
    with recorder(upstream(make_server), out) as proxy:
        live = chat_session_stream(proxy)
    timing = rule_for(out, "stream me")["reply"]["stream"]
    assert timing["first_token_ms"] >= 150
    assert timing["chunk_tokens"] == 2 and timing["chunk_ms"] >= 0
    with serving(out, strict=True) as replay:
        rule = replay.state.registry.current.scenarios.rules[0]
        served = rule.replies[0].spec.stream
        assert served is not None
        assert (served.first_token_ms, served.chunk_ms) == (timing["first_token_ms"], timing["chunk_ms"])
        assert chat_session_stream(replay) == live


def chat_session_stream(server: EmulatorServer) -> list[Any]:
    with _openai(server) as client:
        return [
            (c.choices[0].delta.content if c.choices else None)
            for c in client.chat.completions.create(
                model="openai/gpt-5.4-mini", stream=True, messages=[{"role": "user", "content": "please stream me"}]
            )
        ]


def test_a_changed_prompt_gets_a_loud_404_not_a_wrong_answer(make_server: MakeServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    with recorder(upstream(make_server), out) as proxy, _openai(proxy) as client:
        client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "a plain question"}]
        )
    with serving(out, strict=True) as replay, _openai(replay) as client:
        for changed in (
            {"model": "openai/gpt-5.4-nano", "content": "a plain question"},
            {"model": "openai/gpt-5.4-mini", "content": "a plain question, changed"},
        ):
            with pytest.raises(openai.NotFoundError) as missed:
                client.chat.completions.create(
                    model=changed["model"], messages=[{"role": "user", "content": changed["content"]}]
                )
            assert missed.value.body["type"] == "emulator_no_match"  # type: ignore[index]
            assert "recorded-chat-a-plain-question-" in missed.value.body["message"]  # type: ignore[index]
        with pytest.raises(openai.NotFoundError):  # the same prompt through another face is another request
            client.responses.create(model="openai/gpt-5.4-mini", input="a plain question")


def test_a_request_the_recorder_cannot_read_is_forwarded_not_recorded(make_server: MakeServer, tmp_path: Path) -> None:
    """A Responses conversation continued by id: the stored response is the upstream's, so the
    upstream answers it; only the first turn, which the recorder can read, is recorded."""
    out = tmp_path / "recorded"
    with recorder(upstream(make_server), out) as proxy, _openai(proxy) as client:
        first = client.responses.create(model="openai/gpt-5.4-mini", input="a plain question")
        second = client.responses.create(
            model="openai/gpt-5.4-mini", input="a plain question again", previous_response_id=first.id
        )
        entry = proxy.state.journal.entries()[-1]
    assert first.output_text == "You asked: a plain question"
    assert second.output_text == "You asked: a plain question again"
    assert not entry.recorded and any("not recorded" in w for w in entry.warnings)
    assert [r["match"]["last_user"]["equals"] for r in recorded(out)["rules"]] == ["a plain question"]
