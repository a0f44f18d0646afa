"""The Interactions face on the wire: the documented JSON byte for byte, the SSE events in their
order, the alias path, passthrough fields, ZenMux's 400 naming the field, the shared path's 401 and
429, the catalogue check, and the journal entry."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest

from tests.conftest import MakeServer, served_yaml
from tests.faces.interactions.helpers import MODEL, SCENARIO, ask, events, post
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("interactions-wire"), SCENARIO) as started:
        yield started


def test_the_json_answer_is_the_documented_shape(server: EmulatorServer) -> None:
    answer = post(server, ask("What is the capital of France?"), session="json")
    assert answer.status == 200 and answer.headers["content-type"].startswith("application/json")
    body = answer.json()
    assert list(body) == ["id", "model", "object", "status", "created", "updated", "steps", "usage"]
    assert (
        answer.text
        == orjson.dumps(
            {
                "id": body["id"],
                "model": MODEL,
                "object": "interaction",
                "status": "completed",
                "created": "2026-01-01T00:00:00Z",
                "updated": "2026-01-01T00:00:00Z",
                "steps": [
                    {"type": "model_output", "content": [{"type": "text", "text": "The capital of France is Paris."}]}
                ],
                "usage": {
                    "total_input_tokens": 15,
                    "input_tokens_by_modality": [{"modality": "text", "tokens": 15}],
                    "total_cached_tokens": 0,
                    "total_output_tokens": 8,
                    "total_thought_tokens": 0,
                    "total_tokens": 23,
                },
            }
        ).decode()
    )


def without_id(text: str) -> dict[str, object]:
    body = orjson.loads(text)
    assert isinstance(body, dict) and str(body.pop("id")).startswith("v1_")
    return body


def test_the_same_request_in_another_session_differs_by_its_id_alone(server: EmulatorServer) -> None:
    first = post(server, ask("What is the capital of France?"), session="again-1")
    second = post(server, ask("What is the capital of France?"), session="again-2")
    assert first.json()["id"] != second.json()["id"]  # the id numbers the session's requests
    assert without_id(first.text) == without_id(second.text)


def test_the_stream_sends_the_documented_events_in_order(server: EmulatorServer) -> None:
    answer = post(server, ask("What is the capital of France?", stream=True), session="sse")
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
    sent = events(answer.text)
    names = [name for name, _ in sent]
    deltas = names.count("step.delta")
    assert names == [
        "interaction.created",
        "interaction.status_update",
        "step.start",
        *["step.delta"] * deltas,
        "step.stop",
        "interaction.status_update",
        "interaction.completed",
    ]
    assert all(data["event_type"] == name for name, data in sent)
    assert [data["event_id"] for _, data in sent] == [str(n) for n in range(len(sent))]
    created, opened = sent[0][1]["interaction"], sent[1][1]
    assert (created["status"], "steps" in created, "usage" in created) == ("in_progress", False, False)
    assert opened == {
        "event_type": "interaction.status_update",
        "interaction_id": created["id"],
        "status": "in_progress",
        "event_id": "1",
    }
    text = "".join(data["delta"]["text"] for name, data in sent if name == "step.delta")
    assert text == "The capital of France is Paris."
    final = sent[-1][1]["interaction"]
    assert final["id"] == created["id"] and final["status"] == "completed"
    assert final["steps"][0]["content"][0]["text"] == text and final["usage"]["total_tokens"] == 23


def test_a_function_call_streams_its_arguments(server: EmulatorServer) -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    sent = events(post(server, ask("weather?", tools=[tool], stream=True), session="sse-call").text)
    start = next(data for name, data in sent if name == "step.start")
    assert start["step"]["type"] == "function_call" and start["step"]["name"] == "get_weather"
    delta = next(data for name, data in sent if name == "step.delta")
    assert delta["delta"] == {"type": "arguments_delta", "arguments": '{"city":"Paris"}'}
    assert sent[-1][1]["interaction"]["status"] == "requires_action"
    assert sent[-1][1]["interaction"]["steps"][0]["arguments"] == {"city": "Paris"}


def test_a_scripted_stream_error_is_an_error_event(server: EmulatorServer) -> None:
    sent = events(post(server, ask("fail mid-stream", stream=True), session="sse-error").text)
    assert [name for name, _ in sent][:3] == ["interaction.created", "interaction.status_update", "step.start"]
    name, data = sent[-1]
    assert name == "error" and data["error"] == {"code": "502", "message": "Upstream provider failed"}
    assert "interaction.completed" not in [name for name, _ in sent]


def test_a_large_history_is_read_whole(server: EmulatorServer) -> None:
    turn = {"type": "user_input", "content": [{"type": "text", "text": "padding " * 8}]}
    history = [turn] * 3000 + [{"type": "user_input", "content": [{"type": "text", "text": "capital of France?"}]}]
    answer = post(server, {"model": MODEL, "input": history}, session="large")
    assert answer.status == 200, answer.text[:300]
    body = answer.json()
    assert body["steps"][0]["content"][0]["text"] == "The capital of France is Paris."
    assert body["usage"]["total_input_tokens"] > 3000 * 8


def test_an_overlong_input_is_a_400_naming_the_cap(server: EmulatorServer) -> None:
    answer = post(server, {"model": MODEL, "input": [{"type": "text", "text": "x"}] * 16_385}, session="overlong")
    assert answer.status == 400
    assert (
        answer.json()["error"]["message"] == "input: at most 16384 items are allowed (the emulator's limit), got 16385"
    )


def test_the_v1beta1_alias_answers_the_same(server: EmulatorServer) -> None:
    first = post(server, ask("What is the capital of France?"), session="alias-1")
    second = post(server, ask("What is the capital of France?"), session="alias-2", path="/v1beta1/interactions")
    assert second.status == 200 and without_id(second.text) == without_id(first.text)


def test_unknown_native_fields_pass_through(server: EmulatorServer) -> None:
    body = ask(
        "What is the capital of France?",
        store=False,
        background=False,
        generation_config={
            "temperature": 0.2,
            "max_output_tokens": 64,
            "stop_sequences": ["zzz"],
            "media_resolution": "low",
        },
        response_format={"type": "text", "mime_type": "text/plain"},
        some_future_field={"anything": [1, 2]},
    )
    answer = post(server, body, session="passthrough")
    assert answer.status == 200, answer.text
    assert answer.json()["steps"][0]["content"][0]["text"] == "The capital of France is Paris."


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"input": "hello"}, "model: Field required"),
        ({"model": MODEL}, "input: Field required"),
        ({"model": MODEL, "input": 5}, "input: "),
        ({"model": MODEL, "input": []}, "input: List should have at least 1 item"),
        ({"model": MODEL, "input": [{"type": "text"}]}, "input[0].text: "),
        ({"model": MODEL, "input": [{"type": "sound"}]}, "input[0].type: "),
        ({"model": MODEL, "input": [{"type": "function_result", "result": "x"}]}, "input[0].call_id: "),
        ({**ask("hi"), "generation_config": {"max_output_tokens": 0}}, "generation_config.max_output_tokens: "),
        ({**ask("hi"), "generation_config": {"thinking_level": "huge"}}, "generation_config.thinking_level: "),
        ({**ask("hi"), "stream": "yes"}, "stream: "),
        ({**ask("hi"), "tools": [{"type": "function", "parameters": {}}]}, "tools[0].name: Field required"),
        (
            {**ask("weather?"), "tools": [{"type": "function", "name": "f", "parameters": {"properties": True}}]},
            "tools[0].parameters: not a valid JSON Schema",
        ),
        (
            {**ask("hi"), "response_format": {"type": "text", "mime_type": "application/json", "schema": {"type": 5}}},
            "response_format.schema: not a valid JSON Schema",
        ),
        (
            {**ask("hi"), "response_format": [{"type": "text", "schema": {"required": "x"}}]},
            "response_format[0].schema: not a valid JSON Schema",
        ),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(server: EmulatorServer, body: object, message: str) -> None:
    answer = post(server, body, session="bad")
    assert answer.status == 400, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["type"]) == ("400", "invalid_params")
    assert error["message"].startswith(message), error["message"]


def test_a_json_schema_format_makes_an_unscripted_reply_from_it(server: EmulatorServer) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    form = {"type": "text", "mime_type": "application/json", "schema": schema}
    answer = post(server, ask("no rule answers this", response_format=form), session="format")
    assert answer.status == 200, answer.text
    [output] = [step for step in answer.json()["steps"] if step["type"] == "model_output"]
    text = output["content"][0]["text"]
    assert isinstance(orjson.loads(text)["city"], str)


def test_a_body_that_is_not_an_object_is_a_400(server: EmulatorServer) -> None:
    answer = post(server, ["not", "an", "object"], session="bad")
    assert answer.status == 400 and answer.json()["error"]["type"] == "invalid_params"


def test_no_key_is_the_shared_paths_refusal(server: EmulatorServer) -> None:
    answer = post(server, ask("What is the capital of France?"), key=None)
    assert answer.status == 403  # ZenMux's answer to a request without a key, on every face
    assert answer.json()["error"]["type"] == "access_denied"


def test_the_servers_keys_are_checked_as_on_every_face(make_server: MakeServer) -> None:
    keyed = make_server(SCENARIO, api_keys=["sk-ai-v1-only"])
    assert post(keyed, ask("What is the capital of France?"), key="sk-ai-v1-only").status == 200
    refused = post(keyed, ask("What is the capital of France?"), key="sk-ai-v1-other")
    assert refused.status == 403 and refused.json()["error"]["type"] == "access_denied"


def test_a_scripted_402_is_zenmuxs_envelope(make_server: MakeServer) -> None:
    broke = make_server("rules:\n  - name: broke\n    reply: {error: {status: 402, type: reject_no_credit}}\n")
    answer = post(broke, ask("anything"))
    assert answer.status == 402
    assert answer.json()["error"]["type"] == "reject_no_credit"


def test_a_scripted_429_is_zenmuxs_envelope(server: EmulatorServer) -> None:
    answer = post(server, ask("we are too busy"), session="busy")
    assert answer.status == 429
    assert answer.json()["error"]["message"] == "Slow down"


def test_a_model_outside_the_catalogue_is_refused(server: EmulatorServer) -> None:
    answer = post(server, {"model": "google/no-such-model", "input": "hi"}, session="model")
    assert answer.status in (400, 404), answer.text
    assert "google/no-such-model" in answer.json()["error"]["message"]


def test_a_catalogue_model_answers_too(server: EmulatorServer) -> None:
    answer = post(server, {"model": "google/gemini-3-flash-preview", "input": "What is the capital of France?"})
    assert answer.status == 200 and answer.json()["model"] == "google/gemini-3-flash-preview"


def test_the_faces_own_model_is_refused_on_chat(server: EmulatorServer) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"Authorization": "Bearer sk-x", "Content-Type": "application/json"}
    answer = http(server.base_url + "/chat/completions", orjson.dumps(body), method="POST", headers=headers)
    assert answer.status == 400
    assert answer.json()["error"]["message"].endswith("it is a model of the interactions API")


def test_a_stored_interactions_route_is_a_404_naming_it(server: EmulatorServer) -> None:
    answer = post(server, {}, path="/v1/interactions/v1_abc/cancel")
    assert answer.status == 404
    assert "a route of stored interactions (get, cancel, delete)" in answer.json()["error"]["message"]


def test_the_journal_entry_names_the_face(server: EmulatorServer) -> None:
    post(server, ask("What is the capital of France?", system_instruction="Be brief."), session="journal")
    [entry] = [e for e in server.state.journal.entries() if e.session == "journal"]
    assert (entry.api, entry.rule, entry.status) == ("interactions", "capital", 200)
