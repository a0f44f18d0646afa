"""Record and replay on the Vertex AI / Gemini face: google-genai through `record`, then the same
calls on a fresh emulator that has only the recorded folder. Each exchange is written as a plain
reply (text, thoughts, function calls, usage, pacing), not raw bytes: the replay answers the same,
field for field, on every form (generateContent, SSE, Google's JSON array), and the recorded rule
answers any face once its `api` is dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import yaml
from google import genai
from google.genai import types

from tests.conftest import MakeServer
from tests.faces.vertex.helpers import ask, post
from tests.record.helpers import recorded, recorder, rule_for, serving, upstream
from tests.support.clients import API_KEY, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.store import FILENAME
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "google/gemini-2.5-pro"
UPSTREAM = """\
rules:
  - name: thinking
    match: {last_user: {contains: "think first"}}
    reply:
      reasoning: "The user wants a considered answer; one line will do."
      content: "Considered: the answer is forty-two."
      usage: {prompt_tokens: 9, completion_tokens: 30, reasoning_tokens: 20}
  - name: streamed
    match: {last_user: {contains: "stream me"}}
    reply:
      content: "one two three four five six seven eight nine ten"
      stream: {first_token_ms: 120, chunk_ms: 15, chunk_tokens: 2}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false}
    reply:
      reasoning: "The user asks for the weather in Paris; I will call get_weather."
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: weather-answer
    match: {tool_result: {name: get_weather}}
    reply: {content: "Paris is sunny today."}
  - name: refused
    match: {last_user: {contains: "forbidden"}}
    reply: {refusal: "I can't help with that."}
"""
WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            parameters_json_schema={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ]
)
THOUGHTS = types.ThinkingConfig(include_thoughts=True, thinking_budget=1024)


def _client(server: EmulatorServer) -> genai.Client:
    options = types.HttpOptions(
        base_url=server.url("vertex"), api_version="v1", headers={SESSION_HEADER: "recorded-gemini"}
    )
    return genai.Client(api_key=API_KEY, vertexai=True, http_options=options)


def _parts(response: types.GenerateContentResponse) -> list[dict[str, Any]]:
    """The parts of the first candidate, signatures left out (each server signs its own calls)."""
    assert response.candidates and response.candidates[0].content
    parts = response.candidates[0].content.parts or []
    return [part.model_dump(exclude_none=True, exclude={"thought_signature"}) for part in parts]


def _usage(response: types.GenerateContentResponse) -> dict[str, Any]:
    assert response.usage_metadata is not None
    return response.usage_metadata.model_dump(exclude_none=True)


def session(server: EmulatorServer) -> dict[str, Any]:
    """Every kind of Gemini exchange, through google-genai and raw HTTP for the JSON array."""
    gemini = _client(server)
    seen: dict[str, Any] = {}
    thinking = gemini.models.generate_content(
        model=MODEL, contents="think first, please", config=types.GenerateContentConfig(thinking_config=THOUGHTS)
    )
    seen["thinking"] = [_parts(thinking), _usage(thinking), thinking.candidates[0].finish_reason]  # type: ignore[index]
    pieces = [chunk.text for chunk in gemini.models.generate_content_stream(model=MODEL, contents="stream me")]
    seen["streamed"] = pieces
    array = post(server, f"/v1/publishers/google/models/{MODEL.split('/')[1]}:streamGenerateContent", ask("stream me"))
    seen["array"] = [
        [part["text"] for response in array.json() for part in response["candidates"][0]["content"]["parts"]],
        array.headers["content-type"],
    ]
    config = types.GenerateContentConfig(tools=[WEATHER], thinking_config=THOUGHTS)
    question = types.Content(role="user", parts=[types.Part(text="weather in Paris?")])
    first = gemini.models.generate_content(model=MODEL, contents=[question], config=config)
    assert first.candidates and first.candidates[0].content
    call = first.candidates[0].content
    assert any(part.thought_signature for part in call.parts or [])
    answer = types.Content(
        role="user",
        parts=[types.Part(function_response=types.FunctionResponse(name="get_weather", response={"result": "sunny"}))],
    )
    second = gemini.models.generate_content(model=MODEL, contents=[question, call, answer], config=config)
    seen["tool loop"] = [_parts(first), first.candidates[0].finish_reason, _usage(first), second.text]
    refused = gemini.models.generate_content(model=MODEL, contents="something forbidden")
    assert refused.candidates
    seen["refusal"] = [refused.candidates[0].finish_reason, refused.candidates[0].finish_message]
    return seen


def test_a_recorded_gemini_session_replays_the_same(make_server: MakeServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    with recorder(upstream(make_server, UPSTREAM), out) as proxy:
        live = session(proxy)
        journal = proxy.state.journal.entries()
    assert all(entry.recorded for entry in journal if entry.api == "vertex")
    with serving(out, strict=True) as replay:
        again = session(replay)
    assert again == live

    # what made it the same, in the file: plain replies, not bytes
    rules = recorded(out)["rules"]
    assert rules and not any("raw" in rule.get("reply", {}) for rule in rules)
    thinking = rule_for(out, "think first")["reply"]
    assert thinking["content"] == "Considered: the answer is forty-two."
    assert thinking["reasoning"] == "The user wants a considered answer; one line will do."
    assert thinking["reasoning_shape"] == "google"
    assert thinking["usage"] == {"prompt_tokens": 9, "completion_tokens": 30, "reasoning_tokens": 20}
    called = rule_for(out, "weather in Paris?")["reply"]
    assert called["tool_calls"] == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert called["finish_reason"] == "tool_calls"
    assert called["reasoning_signature"]  # the upstream's signature, kept with the thoughts it came with
    streamed = [r for r in rules if r["match"]["last_user"] == {"equals": "stream me"}]
    assert {rule["match"]["stream"] for rule in streamed} == {True, False}  # SSE, and the JSON array
    for rule in streamed:
        assert rule["reply"]["content"] == "one two three four five six seven eight nine ten"
        assert rule["reply"]["stream"]["chunk_tokens"] == 2
    sse = next(rule for rule in streamed if "first_token_ms" in rule["reply"]["stream"])
    assert sse["reply"]["stream"]["first_token_ms"] >= 120
    assert rule_for(out, "forbidden")["reply"]["refusal"] == "I can't help with that."


def test_a_recorded_gemini_reply_answers_every_face(make_server: MakeServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    with recorder(upstream(make_server, UPSTREAM), out) as proxy:
        thoughts = {"thinkingConfig": {"includeThoughts": True}}
        post(proxy, f"/v1beta/models/{MODEL}:generateContent", ask("think first, please", generationConfig=thoughts))
    document = recorded(out)
    [rule] = document["rules"]
    del rule["match"]["api"]  # the same rule, for whichever face asks
    (out / FILENAME).write_text(yaml.safe_dump(document), encoding="utf-8")
    with serving(out, strict=True) as replay:
        chat = post_chat(replay, "think first, please")
    message = chat["choices"][0]["message"]
    assert message["content"] == "Considered: the answer is forty-two."
    assert message["reasoning"] == "The user wants a considered answer; one line will do."
    assert message["reasoning_details"][0]["type"] == "reasoning.text"
    assert chat["usage"]["completion_tokens_details"]["reasoning_tokens"] == 20


def post_chat(server: EmulatorServer, text: str) -> dict[str, Any]:
    body = {"model": MODEL, "messages": [{"role": "user", "content": text}], "reasoning": {"enabled": True}}
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    reply = http(f"{server.base_url}/chat/completions", orjson.dumps(body), method="POST", headers=headers)
    assert reply.status == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer
