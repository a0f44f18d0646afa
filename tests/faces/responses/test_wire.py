"""The Responses face on the wire: the exact SSE framing, what each event carries, errors in
ZenMux's envelope with OpenAI's wording, warnings, faults, the shared gateway, and the bodies
Codex really sends (captured against a stub, long texts shortened)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.faces.chat.contract.helpers import assert_envelope, request
from tests.faces.responses.helpers import MODEL, PATH, WEATHER_TOOL, created, events_of, post, streamed, text_of
from tests.support.openai_schema import assert_response
from zenmux_emulator.faces.responses.store import ResponseStore, StoredResponse

CAPTURES = Path(__file__).with_name("captures")


def body(text: str, **fields: Any) -> dict[str, Any]:
    return {"model": MODEL, "input": text, **fields}


# --- the stream, byte by byte ---------------------------------------------------------------------


def test_the_stream_is_typed_events_numbered_from_zero(server, session):
    response = post(server, body("hello", stream=True), session=session)
    assert response.headers["Content-Type"] == "text/event-stream; charset=utf-8"
    assert response.headers["X-Emulator-Rule"] == "hello"
    first = response.body.split(b"\n\n")[0]
    assert first.startswith(b'event: response.created\ndata: {"type":"response.created","sequence_number":0,')
    events = events_of(response.body)  # framing, numbering and every event's schema
    kinds = [e["type"] for e in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * 8,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    created_, done, completed = events[0]["response"], events[-2], events[-1]["response"]
    assert created_["status"] == "in_progress" and created_["output"] == [] and "usage" not in created_
    assert completed["id"] == created_["id"] and completed["status"] == "completed"
    assert completed["output"] == [done["item"]]  # Codex reads the former, the Agents SDK the latter
    assert "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta") == text_of(completed)
    assert_response(completed)


def test_the_streamed_and_the_json_answer_agree(server, session):
    whole = created(server, body("hello"), session=session + "-json")
    completed = streamed(server, body("hello"), session=session + "-sse")[-1]["response"]
    for key in ("usage", "status", "model"):
        assert completed[key] == whole[key], key
    without_ids = [[{k: v for k, v in item.items() if k != "id"} for item in r["output"]] for r in (whole, completed)]
    assert without_ids[0] == without_ids[1]  # ids differ: they are made from the session's response id


def test_every_output_item_is_announced_and_done_in_order(server, session):
    asked = {"reasoning": {"effort": "low", "summary": "detailed"}, "include": ["reasoning.encrypted_content"]}
    events = streamed(server, body("weather?", tools=[WEATHER_TOOL], **asked), session=session)
    added = [e for e in events if e["type"] == "response.output_item.added"]
    done = [e for e in events if e["type"] == "response.output_item.done"]
    completed = events[-1]["response"]
    assert [e["item"]["type"] for e in done] == ["reasoning", "function_call"]
    assert [e["item"] for e in done] == completed["output"]
    assert [e["output_index"] for e in added] == [e["output_index"] for e in done] == [0, 1]
    assert added[1]["item"]["arguments"] == "" and added[1]["item"]["status"] == "in_progress"
    summary = "".join(e["delta"] for e in events if e["type"] == "response.reasoning_summary_text.delta")
    assert summary == completed["output"][0]["summary"][0]["text"]
    arguments = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
    assert arguments == completed["output"][1]["arguments"] == '{"city":"Paris"}'
    assert completed["output"][0]["encrypted_content"].startswith("gAAAAA")


def test_a_streamed_refusal_and_custom_call(server, session):
    events = streamed(server, body("forbidden"), session=session)
    assert "".join(e["delta"] for e in events if e["type"] == "response.refusal.delta") == "I can't help with that."
    tools = [{"type": "custom", "name": "apply_patch"}]
    events = streamed(server, body("patch", tools=tools), session=session)
    assert (
        "".join(e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta") == "*** Begin Patch"
    )


def test_an_incomplete_stream_ends_with_response_incomplete(server, session):
    events = streamed(server, body("tell me a long story", max_output_tokens=16), session=session)
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_a_mid_stream_fault_sends_error_and_response_failed(server, session):
    response = post(server, body("break it", stream=True), session=session)
    events = events_of(response.body)
    assert [e["type"] for e in events][-2:] == ["error", "response.failed"]
    assert len(events) == 7
    error, failed = events[-2], events[-1]["response"]
    assert (error["code"], error["message"], error["param"]) == ("server_error", "upstream went away", None)
    assert failed["status"] == "failed"
    assert failed["error"] == {"code": "server_error", "message": "upstream went away"}
    stored = request(server, method="GET", path=f"{PATH}/{failed['id']}", session=session).json()
    assert stored["status"] == "failed"


def test_paced_events_wait_before_the_deltas(server, session):
    import time

    started = time.perf_counter()
    events = streamed(server, body("say it slowly"), session=session)
    assert time.perf_counter() - started >= 0.05 + 0.01 * 3
    assert "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta") == "one two three four"


# --- errors and warnings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ({"input": "hi"}, "Missing required parameter: 'model'."),
        ({"model": MODEL}, "Missing required parameter: 'input'."),
        (
            {"model": MODEL, "input": 5},
            "Invalid type for 'input': expected a string or an array of input items, but got an integer instead.",
        ),
        (
            {"model": MODEL, "input": [{"role": "robot", "content": "x"}]},
            "Invalid value: 'robot'. Supported values are: 'user', 'assistant', 'system', and 'developer'.",
        ),
        (
            {"model": MODEL, "input": [{"type": "function_call_output", "output": "x"}]},
            "Missing required parameter: 'input[0].call_id'.",
        ),
        (
            {"model": MODEL, "input": [{"type": 5}]},  # an unknown string type is a newer item: kept, with a warning
            "Missing required parameter: 'input[0].type'.",
        ),
        (
            {"model": MODEL, "input": "x", "max_output_tokens": 5},
            "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.",
        ),
        (
            {"model": MODEL, "input": "x", "temperature": 3},
            "Invalid 'temperature': integer above maximum value. Expected a value <= 2, but got 3 instead.",
        ),
        (
            {"model": MODEL, "input": "x", "tools": [{"type": "function", "name": "bad name"}]},
            "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern "
            "'^[a-zA-Z0-9_-]{1,128}$'.",
        ),
        (
            {"model": MODEL, "input": "x", "text": {"format": {"type": "json_schema", "name": "w"}}},
            "Missing required parameter: 'text.format.schema'.",
        ),
        (
            {
                "model": MODEL,
                "input": "x",
                "include": [5],
            },  # an unknown string is a newer value: ignored, with a warning
            "Invalid type for 'include[0]': expected a string, but got an integer instead.",
        ),
        (
            {"model": MODEL, "input": "x", "provider": {"routing": {"type": "fastest"}}},
            "Parameter type of provider.routing is not valid",
        ),
    ],
)
def test_invalid_requests_name_the_field_in_openai_words(server, sent, message):
    assert_envelope(post(server, sent), 400, "invalid_params", message)


def test_a_missing_key_is_refused_before_anything_else(server):
    assert_envelope(post(server, {"input": "x"}, key=None), 403, "access_denied")
    assert_envelope(request(server, method="GET", path=f"{PATH}/resp_x", key=None), 403, "access_denied")


def test_unsupported_fields_and_tools_are_accepted_and_named(server, session):
    tools = [
        WEATHER_TOOL,
        {"type": "code_interpreter", "container": {"type": "auto"}},
        {"type": "web_search"},
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
    ]
    response = post(
        server,
        body("hello", service_tier="flex", user="u1", background=False, metadata={"a": "b"}, tools=tools, shiny=True),
        session=session,
    )
    assert response.status == 200
    warnings = response.headers["X-Emulator-Warnings"]
    for named in (
        "service_tier is not supported by ZenMux's Responses API",
        "user is not supported",
        "background is not supported",
        "metadata is not supported",
        "tools[1]: the code_interpreter tool is not supported by ZenMux",
        "tools[3]: the file_search tool is not supported",
        "unknown parameter 'shiny' was ignored",
    ):
        assert named in warnings
    assert "web_search" not in warnings
    assert response.json()["metadata"] == {}


# --- real client bodies -------------------------------------------------------------------------------


def codex(name: str) -> dict[str, Any]:
    return json.loads((CAPTURES / name).read_text(encoding="utf-8"))


def test_codex_turns_are_accepted_as_sent(make_server):
    server = make_server("""
        rules:
          - name: codex-call
            match: {tools: [exec_command], tool_result: false}
            reply:
              tool_calls: [{name: exec_command, arguments: {cmd: "echo hi"}}]
          - name: codex-done
            match: {tool_result: {name: exec_command, content: {contains: STUB_SHELL_RAN}}}
            reply: {content: "done"}
    """)
    first = post(server, codex("codex_turn1.json"))
    events = events_of(first.body)
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [item["name"] for item in done if item["type"] == "function_call"] == ["exec_command"]
    second = codex("codex_turn2.json")
    assert second["store"] is False and second["include"] == ["reasoning.encrypted_content"]
    events = events_of(post(server, second).body)
    assert text_of(events[-1]["response"]) == "done"
    assert events[-1]["response"]["store"] is False
    assert request(server, method="GET", path=f"{PATH}/{events[-1]['response']['id']}").status == 404


def test_a_tool_inside_a_namespace_is_offered_and_its_call_names_the_namespace(make_server):
    server = make_server("""
        rules:
          - name: spawn
            match: {tools: [spawn_agent]}
            reply: {tool_calls: [{name: spawn_agent, arguments: {task: x}}]}
    """)
    tools = [
        {
            "type": "namespace",
            "name": "multi_agent_v1",
            "description": "Sub-agents",
            "tools": [{"type": "function", "name": "spawn_agent", "parameters": {"type": "object"}}],
        }
    ]
    answer = created(server, body("go", tools=tools))
    assert answer["output"][0]["namespace"] == "multi_agent_v1"
    assert "X-Emulator-Warnings" not in post(server, body("go", tools=tools)).headers


# --- one rule set, every face -------------------------------------------------------------------------


def test_one_rule_answers_chat_and_responses_clients_the_same_conversation(make_server):
    server = make_server("""
        rules:
          - name: call
            match: {tools: [get_weather], tool_result: false}
            reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
          - name: answer
            match: {tool_result: {name: get_weather, json: {sky: clear}}, turn: 1, system: {contains: terse}}
            reply: {content: "{{ request.tool_result.json.sky }} over Oslo"}
    """)
    chat_tool = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_TOOL["parameters"]}}
    chat_first = request(
        server,
        {
            "model": MODEL,
            "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Weather?"}],
            "tools": [chat_tool],
        },
        path="/api/v1/chat/completions",
    ).json()
    call = chat_first["choices"][0]["message"]["tool_calls"][0]
    chat_second = request(
        server,
        {
            "model": MODEL,
            "tools": [chat_tool],
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "Weather?"},
                chat_first["choices"][0]["message"],
                {"role": "tool", "tool_call_id": call["id"], "content": '{"sky": "clear"}'},
            ],
        },
        path="/api/v1/chat/completions",
    ).json()

    first = created(server, body("Weather?", instructions="Be terse.", tools=[WEATHER_TOOL]))
    fc = first["output"][0]
    second = created(
        server,
        {
            "model": MODEL,
            "instructions": "Be terse.",
            "tools": [WEATHER_TOOL],
            "previous_response_id": first["id"],
            "input": [{"type": "function_call_output", "call_id": fc["call_id"], "output": '{"sky": "clear"}'}],
        },
    )
    assert json.loads(fc["arguments"]) == json.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    assert text_of(second) == chat_second["choices"][0]["message"]["content"] == "clear over Oslo"
    assert second["usage"]["input_tokens"] > first["usage"]["input_tokens"]


def test_api_narrows_a_rule_to_one_face(server, session):
    assert text_of(created(server, body("which face?"), session=session)) == "responses face"
    chat = request(
        server,
        {"model": MODEL, "messages": [{"role": "user", "content": "which face?"}]},
        path="/api/v1/chat/completions",
        session=session,
    ).json()
    assert chat["choices"][0]["message"]["content"] == "chat face"


# --- the shared gateway: control headers, journal, near misses, chaos -----------------------------------


def test_control_headers_work_on_this_face(server, session):
    forced = post(server, body("no rule would match this"), session=session, headers={"X-Emulator-Rule": "hello"})
    assert text_of(forced.json()) == "Hi there! How can I help?"
    failed = post(server, body("hello"), session=session, headers={"X-Emulator-Fault": "error=429"})
    assert_envelope(failed, 429, "rate_limit", "Rate limit exceeded")
    assert failed.headers["Retry-After"] == "1"


def test_the_journal_and_near_misses_cover_this_face(server, session):
    post(server, body("weather, please"), session=session)  # tools missing: weather-call is a near miss
    journal = request(server, method="GET", path=f"/_emulator/journal?session={session}").json()
    [entry] = [e for e in journal["entries"] if e["path"] == PATH]
    assert entry["api"] == "responses" and entry["rule"] is None
    assert "weather-call" in [miss["rule"] for miss in entry["near_misses"]]
    unmatched = request(server, method="GET", path=f"/_emulator/journal/unmatched?session={session}").json()
    assert unmatched["entries"]


def test_strict_mode_answers_unmatched_requests_404(make_server):
    server = make_server("rules: []\n", strict=True)
    assert post(server, body("anything")).status == 404


# --- the store ----------------------------------------------------------------------------------------


def test_two_servers_in_one_process_keep_their_own_responses(make_server):
    one, two = make_server("rules: []\n"), make_server("rules: []\n")
    answer = created(one, body("hi"))
    assert request(one, method="GET", path=f"{PATH}/{answer['id']}").status == 200
    assert_envelope(
        request(two, method="GET", path=f"{PATH}/{answer['id']}"),
        404,
        "invalid_request_error",
        f"Response with id '{answer['id']}' not found.",
    )


def test_the_store_keeps_the_newest_responses_of_each_session():
    store = ResponseStore(per_session=2, sessions=2)
    for n in range(3):
        store.put("a", f"resp_{n}", StoredResponse({"id": f"resp_{n}"}, [], []))
    assert store.get("a", "resp_0") is None and store.get("a", "resp_2") is not None and len(store) == 2
    store.put("b", "resp_b", StoredResponse({}, [], []))
    store.put("c", "resp_c", StoredResponse({}, [], []))
    assert store.get("a", "resp_2") is None  # the least recently used session went
    assert store.delete("c", "resp_c") and not store.delete("c", "resp_c")


def test_a_function_tool_is_echoed_whole_as_openai_fills_it(server, session):
    """Issue 42: a tool sent without `strict` and `description` was echoed without them, and a validator
    built from OpenAI's spec (which requires `strict` and `parameters`) refused the echo."""
    bare = {"type": "function", "name": "get_weather", "parameters": WEATHER_TOOL["parameters"]}
    answer = created(server, body("hello", tools=[bare]), session=session)  # checked against OpenAI's schema
    assert answer["tools"] == [{**bare, "description": None, "strict": True}]
    given = created(server, body("hello", tools=[{**WEATHER_TOOL, "strict": False}]), session=session)
    assert given["tools"] == [{**WEATHER_TOOL, "strict": False}]
