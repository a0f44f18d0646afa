"""What the shared request path gives every face, seen through this one: limits and MAX_TOKENS,
reply sequences, routing's fallback, the generation lookup, the client verdict on function calls,
expectations, strict mode's 404, and record and replay."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from google.genai import errors, types

from tests.conftest import FROZEN, MakeServer
from tests.faces.vertex.helpers import MODEL, ask, client, post
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.command import record_settings
from zenmux_emulator.record.store import FILENAME
from zenmux_emulator.settings import Settings

SCENARIO = """
models:
  google/gemini-2.5-pro:
    providers:
      - {name: google-vertex, fail: {status: 503}}
      - {name: google-ai-studio}
rules:
  - name: counting
    match: {api: vertex, last_user: count}
    replies: [{content: "one"}, {content: "two"}]
  - name: long
    match: {last_user: long}
    reply: {content: "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: weather-answer
    match: {tool_result: {name: get_weather}}
    expect: {system: {contains: weather bot}}
    reply: {content: "sunny"}
"""
WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather", parameters_json_schema={"type": "object", "properties": {"city": {"type": "string"}}}
        )
    ]
)


def test_max_output_tokens_cuts_the_reply_with_max_tokens(make_server: MakeServer) -> None:
    gemini = client(make_server(SCENARIO), "limits", vertexai=True)
    reply = gemini.models.generate_content(
        model=MODEL,
        contents="a long one",
        config=types.GenerateContentConfig(
            max_output_tokens=3, thinking_config=types.ThinkingConfig(thinking_budget=0)
        ),
    )
    assert reply.text == "alpha beta gamma"
    assert reply.candidates and reply.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert reply.usage_metadata and reply.usage_metadata.candidates_token_count == 3
    assert reply.usage_metadata.thoughts_token_count is None


def test_a_sequence_advances_and_routing_falls_back(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    gemini = client(server, "sequence", vertexai=False)
    texts = [gemini.models.generate_content(model=MODEL, contents="count please").text for _ in range(3)]
    assert texts == ["one", "two", "two"]
    [entry] = server.state.journal.entries()[-1:]
    assert [a.provider for a in entry.routing] == ["google-vertex", "google-ai-studio"]


def test_the_generation_lookup_finds_the_reply(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    reply = post(server, "/v1/publishers/google/models/gemini-2.5-pro:generateContent", ask("count"))
    found = http(
        f"{server.base_url}/management/generation?id={reply.json()['responseId']}",
        headers={"Authorization": "Bearer sk-x"},
    )
    assert found.status == 200, found.text
    assert found.json()["api"] == "generateContent"


def test_the_verdict_reads_function_calls_and_their_answers(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    handle = ZenmuxHandle(server=server, nodeid="vertex::verdict")
    gemini = handle.gemini_client(vertexai=True)
    config = types.GenerateContentConfig(tools=[WEATHER], system_instruction="You are a weather bot.")
    first = gemini.models.generate_content(model=MODEL, contents="weather?", config=config)
    findings = handle.verdict()
    assert [(f.check, f.seq) for f in findings] == [("tool_calls", handle.requests[0].seq)]
    assert first.candidates and first.candidates[0].content
    history = [
        types.Content(role="user", parts=[types.Part(text="weather?")]),
        first.candidates[0].content,
        types.Content(
            role="user", parts=[types.Part.from_function_response(name="get_weather", response={"result": "sunny"})]
        ),
    ]
    assert gemini.models.generate_content(model=MODEL, contents=history, config=config).text == "sunny"
    assert handle.verdict() == []
    forged = history[1].model_copy(deep=True)
    assert forged.parts
    forged.parts[0].thought_signature = b"forged"
    with pytest.raises(errors.ClientError):
        gemini.models.generate_content(model=MODEL, contents=[history[0], forged, history[2]], config=config)
    [finding] = handle.verdict()
    assert finding.check == "reasoning" and "Corrupted thought signature." in finding.message
    handle.close_clients()


def test_an_unmet_expectation_is_journaled(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    gemini = client(server, "expect", vertexai=True)
    history = [
        types.Content(role="user", parts=[types.Part(text="weather?")]),
        types.Content(
            role="user", parts=[types.Part.from_function_response(name="get_weather", response={"result": "sunny"})]
        ),
    ]
    gemini.models.generate_content(model=MODEL, contents=history)
    [entry] = server.state.journal.entries()[-1:]
    assert entry.rule == "weather-answer" and entry.unmet_expectations


def test_strict_mode_refuses_an_unmatched_request_in_zenmux_envelope(make_server: MakeServer) -> None:
    gemini = client(make_server(SCENARIO, strict=True), "strict", vertexai=True)
    with pytest.raises(errors.ClientError) as missed:
        gemini.models.generate_content(model=MODEL, contents="nothing matches this")
    assert missed.value.code == 404


def events(text: str) -> list[str]:
    return [e for e in text.replace("\r\n", "\n").split("\n\n") if e]


def test_record_and_replay(tmp_path: Path, make_server: MakeServer) -> None:
    upstream, out = make_server(SCENARIO), tmp_path / "out"
    given = record_settings({"out": str(out), "upstream": upstream.origin, "port": 0})
    with EmulatorServer(Settings(**given)) as recorder:
        live = post(recorder, "/v1beta/models/google/gemini-2.5-pro:streamGenerateContent?alt=sse", ask("count"))
    assert live.status == 200 and '"text":"one"' in live.text
    document = yaml.safe_load((out / FILENAME).read_text(encoding="utf-8"))
    [rule] = document["rules"]
    assert rule["match"]["api"] == "vertex"
    with EmulatorServer(Settings(port=0, scenarios=[str(out)], clock=FROZEN, watch=False)) as replay:
        again = post(replay, "/v1beta/models/google/gemini-2.5-pro:streamGenerateContent?alt=sse", ask("count"))
    assert again.status == 200
    assert events(again.text) == events(live.text)  # the recorded stream, its events split by blank lines
