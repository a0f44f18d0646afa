"""The Vertex AI / Gemini face on the wire, with a raw HTTP client: the path forms, SSE and the JSON
array, every way of giving the key, the error envelope, validation naming the field, a stream
fault, determinism, and one rule answering the same prompt on every face."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import orjson
import pytest
from google.genai import types

from tests.conftest import API_KEY, MakeServer, served_yaml
from tests.faces.anthropic.helpers import sdk as anthropic_sdk
from tests.faces.vertex.helpers import MODEL, SCENARIO, ask, client, post
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

STORY = "Once upon a time there was a gateway that spoke every dialect of the machines."
PATHS = {
    "vertex": "/v1/publishers/google/models/gemini-2.5-pro",
    "vertex-project": "/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-pro",
    "gemini-api": "/v1beta/models/google/gemini-2.5-pro",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("vertex-wire"), SCENARIO) as started:
        yield started


def text_of(response: dict[str, object]) -> str:
    candidates = response["candidates"]
    assert isinstance(candidates, list)
    return "".join(p.get("text", "") for p in candidates[0]["content"]["parts"] if not p.get("thought"))


@pytest.mark.parametrize("form", PATHS)
def test_every_path_form_answers_from_the_same_rule(server: EmulatorServer, form: str) -> None:
    reply = post(server, PATHS[form] + ":generateContent", ask("tell me a long story"))
    assert reply.status == 200, reply.text
    body = reply.json()
    assert text_of(body) == STORY
    assert body["modelVersion"] == MODEL and body["candidates"][0]["finishReason"] == "STOP"
    assert set(body) == {"candidates", "usageMetadata", "modelVersion", "createTime", "responseId"}
    assert body["createTime"] == "2026-01-01T00:00:00.000000Z"
    assert reply.headers["x-emulator-rule"] == "long"
    usage = body["usageMetadata"]
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"] + usage.get(
        "thoughtsTokenCount", 0
    )


def test_alt_sse_streams_whole_responses_and_without_it_one_json_array(server: EmulatorServer) -> None:
    path = PATHS["gemini-api"] + ":streamGenerateContent"
    sse = post(server, path + "?alt=sse", ask("tell me a long story"))
    assert sse.status == 200 and sse.headers["content-type"].startswith("text/event-stream")
    events = [orjson.loads(chunk.removeprefix("data: ")) for chunk in sse.text.split("\r\n\r\n") if chunk]
    assert len(events) > 3 and "".join(text_of(e) for e in events) == STORY
    assert [("finishReason" in e["candidates"][0]) for e in events] == [False] * (len(events) - 1) + [True]
    assert "candidatesTokenCount" in events[-1]["usageMetadata"]
    assert "candidatesTokenCount" not in events[0]["usageMetadata"]

    array = post(server, path, ask("tell me a long story"))
    assert array.status == 200 and array.headers["content-type"].startswith("application/json")
    responses = array.json()
    assert isinstance(responses, list)
    assert [text_of(r) for r in responses] == [text_of(e) for e in events]
    assert responses[-1]["usageMetadata"] == events[-1]["usageMetadata"]


@pytest.mark.parametrize("how", ["x-goog-api-key", "bearer", "query"])
def test_the_key_may_come_as_google_sends_it_or_as_zenmux_documents(make_server: MakeServer, how: str) -> None:
    server = make_server(SCENARIO, api_keys=["sk-ai-v1-only"])
    path = PATHS["vertex"] + ":generateContent"
    if how == "query":
        reply = post(server, path + "?key=sk-ai-v1-only", ask("hello gemini"), key=None)
    elif how == "bearer":
        reply = post(server, path, ask("hello gemini"), key=None, headers={"Authorization": "Bearer sk-ai-v1-only"})
    else:
        reply = post(server, path, ask("hello gemini"), key="sk-ai-v1-only")
    assert reply.status == 200, reply.text
    for refused in (
        post(server, path, ask("hello gemini"), key=None),
        post(server, path + "?key=sk-ai-v1-other", ask("hello gemini"), key=None),
    ):
        assert refused.status == 403
        assert refused.json() == {
            "error": {
                "code": "403",
                "type": "access_denied",
                "message": "You have no permission to access this resource",
            }
        }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "contents: Field required"),
        ({"contents": []}, "contents: List should have at least 1 item after validation, not 0"),
        (
            ask("hi") | {"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]},
            "contents[0].role: Input should be 'user', 'model', 'function' or 'tool'",
        ),
        (
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "hi", "inlineData": {"mimeType": "image/png", "data": "AA=="}}]}
                ]
            },
            "contents[0].parts[0]: a part holds one kind of data, this one holds text and inlineData",
        ),
        (
            ask("hi", generationConfig={"stopSequences": ["a", "b", "c", "d", "e", "f"]}),
            "generationConfig.stopSequences: List should have at most 5 items after validation, not 6",
        ),
        (
            ask("hi", generationConfig={"temperature": 3}),
            "generationConfig.temperature: expected a number between 0 and 2, got 3",
        ),
        (
            ask("hi", generationConfig={"thinkingConfig": {"thinkingBudget": "lots"}}),
            "generationConfig.thinkingConfig.thinkingBudget: Input should be a valid integer",
        ),
        (
            ask("hi", toolConfig={"functionCallingConfig": {"mode": "SOMETIMES"}}),
            "toolConfig.functionCallingConfig.mode: Input should be 'AUTO', 'ANY', 'NONE', 'VALIDATED' or 'MODE_UNSPECIFIED'",
        ),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(server: EmulatorServer, body: object, message: str) -> None:
    reply = post(server, PATHS["vertex"] + ":generateContent", body)
    assert reply.status == 400
    assert reply.json() == {"error": {"code": "400", "type": "invalid_params", "message": message}}


def test_snake_case_keys_are_read_as_google_reads_them(server: EmulatorServer) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hello gemini"}]}],
        "generation_config": {"thinking_config": {"include_thoughts": True}},
    }
    reply = post(server, PATHS["gemini-api"] + ":generateContent", body)
    parts = reply.json()["candidates"][0]["content"]["parts"]
    assert [p.get("thought", False) for p in parts] == [True, False]


def test_a_stream_fault_ends_the_stream_with_an_error_event(make_server: MakeServer) -> None:
    server = make_server("""
        rules:
          - name: broken
            match: {last_user: broken}
            reply: {content: "one two three four five six", stream: {fault: {after_chunks: 3, kind: error, code: "503", message: "Overloaded"}}}
    """)
    reply = post(server, PATHS["gemini-api"] + ":streamGenerateContent?alt=sse", ask("broken"))
    events = [chunk.removeprefix("data: ") for chunk in reply.text.split("\r\n\r\n") if chunk]
    assert len(events) == 4
    assert orjson.loads(events[-1]) == {
        "error": {"code": "503", "type": "internal_server_error", "message": "Overloaded"}
    }


def test_the_same_request_gives_the_same_bytes(make_server: MakeServer) -> None:
    bodies = []
    for _ in range(2):
        server = make_server(SCENARIO)
        bodies.append(
            post(
                server,
                PATHS["vertex"] + ":streamGenerateContent?alt=sse",
                ask("hello gemini"),
                headers={SESSION_HEADER: "same"},
            ).text
        )
    assert bodies[0] == bodies[1]


def test_the_model_lists_need_no_key(server: EmulatorServer) -> None:
    listed = http(server.url("vertex") + "/v1beta/models").json()["models"]
    entry = next(m for m in listed if m["name"] == MODEL)
    assert entry["inputTokenLimit"] > 0 and "generateContent" in entry["supportedGenerationMethods"]
    one = http(server.url("vertex") + "/v1/publishers/google/models/gemini-2.5-pro")
    assert one.json() == entry
    missing = http(server.url("vertex") + "/v1beta/models/google/gemini-0")
    assert missing.status == 404 and missing.json()["error"]["type"] == "invalid_model"


def test_one_rule_answers_the_same_prompt_on_every_face(server: EmulatorServer) -> None:
    prompt, expected = "tell me a long story", STORY
    chat = openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
    assert (
        chat.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}])
        .choices[0]
        .message.content
        == expected
    )
    assert chat.responses.create(model=MODEL, input=prompt).output_text == expected
    claude = anthropic_sdk(server, "every-face")
    message = claude.messages.create(model=MODEL, max_tokens=200, messages=[{"role": "user", "content": prompt}])
    assert [b.text for b in message.content if b.type == "text"] == [expected]
    gemini = client(server, "every-face", vertexai=True)
    assert (
        gemini.models.generate_content(model=MODEL, contents=prompt, config=types.GenerateContentConfig()).text
        == expected
    )
    rules = [e.rule for e in server.state.journal.entries()[-4:]]
    assert rules == ["long"] * 4
