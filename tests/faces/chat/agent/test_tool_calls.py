"""Tool calls over a scenario of our own: scripted ids, id styles by family, tool_choice forcing,
sequential streaming, the tool-flow request checks, and tool_result matching and templates."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from jsonschema import Draft202012Validator, FormatChecker

from tests.faces.chat.agent.helpers import (
    ANTHROPIC,
    CALL_ID,
    GEMINI,
    GET_TIME,
    GET_WEATHER,
    GPT5,
    RULE_HEADER,
    RUN_SQL,
    TOOLU_ID,
    WARNINGS_HEADER,
    accumulate,
    function_tool,
    message_of,
    serve,
    tool_deltas,
)
from tests.faces.chat.contract.helpers import assert_envelope, post
from tests.support.clients import sdk
from tests.support.openai_schema import assert_chat_chunk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

YAML = """
rules:
  - name: third-turn
    priority: 5
    match: {turn: 2, tool_result: true}
    reply: {content: "third turn"}
  - name: order-shipped
    match: {tool_result: {name: lookup_order, json: {"order.lines.1.sku": "B-2", "order.status": {starts_with: "ship"}}}}
    reply: {content: "Line {{ request.tool_result.json.order.lines[1].sku }} is {{ request.tool_result.json.order.status }}."}
  - name: order-total
    match: {tool_result: {json: {"order.total": 42, "order.paid": true}}}
    reply: {content: "Total {{ request.tool_result.json.order.total }}"}
  - name: order-has-c3
    match: {tool_result: {json: {"order.lines": {contains: "C-3"}}}}
    reply: {content: "has C-3"}
  - name: not-found
    match: {tool_result: {name: lookup_order, content: {contains: "not found"}}}
    reply: {content: "Raw: {{ request.tool_result.content }} ({{ request.tool_result.name }})"}
  - name: scripted-id
    match: {last_user: {contains: "scripted id"}}
    reply:
      tool_calls:
        - {name: lookup_order, arguments: {order_id: "A-1"}, id: my_call_1}
        - {name: lookup_order, arguments: {order_id: "A-2"}}
  - name: sequential-stream
    match: {last_user: {contains: "sequential"}}
    reply:
      tool_calls:
        - {name: lookup_order, arguments: {order_id: "A-1", note: "first of two"}}
        - {name: lookup_order, arguments: {order_id: "A-2", note: "second of two"}}
      stream: {argument_chars: 4}
  - name: default-chars
    match: {last_user: {contains: "default chars"}}
    reply:
      tool_calls:
        - {name: lookup_order, arguments: {order_id: "A-1", note: "a somewhat longer note to split up"}}
"""

LOOKUP = function_tool("lookup_order", {"order_id": {"type": "string"}, "note": {"type": "string"}}, ["order_id"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with serve(Path(tmp_path_factory.mktemp("tool-calls")), YAML) as s:
        yield s


def ask(text: str, model: str = GPT5, **fields: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}], "tools": [LOOKUP], **fields}


def call(call_id: str, name: str = "lookup_order", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def assistant(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def tool(call_id: str, content: Any) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": content if isinstance(content, str) else json.dumps(content),
    }


USER = {"role": "user", "content": "where is my order?"}


def answered(result: Any, name: str = "lookup_order", model: str = GPT5) -> dict[str, Any]:
    return {"model": model, "tools": [LOOKUP], "messages": [USER, assistant(call("c1", name)), tool("c1", result)]}


# --- ids ----------------------------------------------------------------------------------------


def test_a_scripted_id_is_used_and_the_others_are_generated(server, session):
    message = message_of(post(server, ask("use a scripted id"), session=session))
    ids = [c["id"] for c in message["tool_calls"]]
    assert ids[0] == "my_call_1"
    assert re.match(CALL_ID, ids[1])


@pytest.mark.parametrize(
    ("model", "style"),
    [
        (GPT5, CALL_ID),
        ("openai/gpt-5.4-mini", CALL_ID),
        (ANTHROPIC, TOOLU_ID),
        ("anthropic/claude-opus-4.5", TOOLU_ID),
        (GEMINI, CALL_ID),
        ("deepseek/deepseek-chat", CALL_ID),
    ],
)
def test_default_ids_follow_the_family_style(server, session, model: str, style: str):
    message = message_of(post(server, ask("sequential please", model=model), session=session))
    ids = [c["id"] for c in message["tool_calls"]]
    assert len(ids) == 2 and len(set(ids)) == 2
    assert all(re.match(style, i) for i in ids), ids


def test_ids_are_the_same_for_the_same_request_and_differ_for_another(server, session):
    one = message_of(post(server, ask("sequential please"), session=session))
    two = message_of(post(server, ask("sequential please"), session=session))
    other = message_of(post(server, ask("sequential please, again"), session=session))
    assert one["tool_calls"] == two["tool_calls"]
    assert [c["id"] for c in other["tool_calls"]] != [c["id"] for c in one["tool_calls"]]


# --- streaming ----------------------------------------------------------------------------------


def test_sequential_streaming_sends_each_call_whole_before_the_next(server, session):
    plain = message_of(post(server, ask("sequential please"), session=session))
    chunks = post(server, ask("sequential please", stream=True), session=session).sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    calls = tool_deltas(chunks)
    order = [c["index"] for c in calls]
    assert order == sorted(order) and set(order) == {0, 1}
    for index in (0, 1):
        mine = [c for c in calls if c["index"] == index]
        assert set(mine[0]) == {"index", "id", "type", "function"} and mine[0]["function"]["arguments"] == ""
        assert all(set(f) == {"index", "function"} and len(f["function"]["arguments"]) <= 4 for f in mine[1:])
        assert all(len(f["function"]["arguments"]) == 4 for f in mine[1:-1])
    assert accumulate(chunks)["tool_calls"] == plain["tool_calls"]


def test_arguments_stream_in_sixteen_characters_by_default(server, session):
    chunks = post(server, ask("default chars", stream=True), session=session).sse().chunks
    _opening, *fragments = tool_deltas(chunks)
    pieces = [f["function"]["arguments"] for f in fragments]
    assert len(pieces) > 2
    assert all(len(p) == 16 for p in pieces[:-1]) and 1 <= len(pieces[-1]) <= 16
    assert json.loads("".join(pieces)) == {"order_id": "A-1", "note": "a somewhat longer note to split up"}


# --- tool_choice ----------------------------------------------------------------------------------

TIME_SCHEMA = GET_TIME["function"]["parameters"]


def test_a_named_function_is_called_with_schema_valid_arguments(server, session):
    with sdk(server, session) as client:
        completion = client.chat.completions.create(
            model=GPT5,
            messages=[{"role": "user", "content": "nothing scripted for this"}],
            tools=[GET_WEATHER, GET_TIME],
            tool_choice={"type": "function", "function": {"name": "get_time"}},
        )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    [made] = choice.message.tool_calls
    assert made.function.name == "get_time"
    assert Draft202012Validator(TIME_SCHEMA, format_checker=FormatChecker()).is_valid(
        json.loads(made.function.arguments)
    )


def test_a_forced_call_is_deterministic(server, session):
    body = {
        "model": GPT5,
        "messages": [{"role": "user", "content": "force it"}],
        "tools": [GET_WEATHER, GET_TIME],
        "tool_choice": "required",
    }
    one = message_of(post(server, body, session=session))
    two = message_of(post(server, body, session=session + "-b"))
    assert one["tool_calls"] == two["tool_calls"]
    [made] = one["tool_calls"]
    assert made["function"]["name"] == "get_weather"
    arguments = json.loads(made["function"]["arguments"])
    assert Draft202012Validator(GET_WEATHER["function"]["parameters"]).is_valid(arguments)


def test_required_through_allowed_tools_forces_a_call(server, session):
    body = {
        "model": GPT5,
        "messages": [{"role": "user", "content": "force it"}],
        "tools": [GET_WEATHER, GET_TIME],
        "tool_choice": {
            "type": "allowed_tools",
            "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "get_weather"}}]},
        },
    }
    response = post(server, body, session=session)
    assert len(message_of(response)["tool_calls"]) == 1


def test_a_named_custom_tool_gets_a_custom_call(server, session):
    body = {
        "model": ANTHROPIC,
        "messages": [{"role": "user", "content": "query it"}],
        "tools": [GET_WEATHER, RUN_SQL],
        "tool_choice": {"type": "custom", "custom": {"name": "run_sql"}},
    }
    [made] = message_of(post(server, body, session=session))["tool_calls"]
    assert made["type"] == "custom" and made["custom"]["name"] == "run_sql"
    assert isinstance(made["custom"]["input"], str) and made["custom"]["input"]
    assert re.match(TOOLU_ID, made["id"])


def test_auto_with_nothing_scripted_makes_no_call(server, session):
    message = message_of(
        post(
            server,
            {"model": GPT5, "messages": [{"role": "user", "content": "just chat"}], "tools": [GET_WEATHER]},
            session=session,
        )
    )
    assert "tool_calls" not in message and message["content"]


def test_tool_choice_none_drops_scripted_calls_with_a_warning(server, session):
    response = post(server, ask("sequential please", tool_choice="none"), session=session)
    message = message_of(response)
    assert "tool_calls" not in message
    assert response.json()["choices"][0]["finish_reason"] == "stop"
    assert "tool_choice is none" in response.headers.get(WARNINGS_HEADER, "")


def test_parallel_tool_calls_false_keeps_the_first_of_two(server, session):
    response = post(server, ask("use a scripted id", parallel_tool_calls=False), session=session)
    assert [c["id"] for c in message_of(response)["tool_calls"]] == ["my_call_1"]
    assert "parallel_tool_calls is false" in response.headers.get(WARNINGS_HEADER, "")


def test_parallel_tool_calls_false_with_one_forced_call_does_not_warn(server, session):
    body = {
        "model": GPT5,
        "messages": [{"role": "user", "content": "force one"}],
        "tools": [GET_TIME],
        "tool_choice": "required",
        "parallel_tool_calls": False,
    }
    response = post(server, body, session=session)
    assert len(message_of(response)["tool_calls"]) == 1
    assert response.headers.get(WARNINGS_HEADER) is None


# --- the tool-flow request checks ----------------------------------------------------------------


def test_a_tool_message_answering_no_call_is_400(server, session):
    body = {"model": GPT5, "messages": [USER, assistant(call("c1")), tool("c1", "ok"), tool("c9", "stray")]}
    error = assert_envelope(post(server, body, session=session), 400, "invalid_params")
    assert "messages[3]" in error["message"] and "c9" in error["message"]
    with sdk(server, session) as client, pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model=GPT5, messages=body["messages"])
    assert raised.value.body["type"] == "invalid_params" and "messages[3]" in raised.value.body["message"]


def test_a_tool_message_before_any_call_is_400(server, session):
    body = {"model": GPT5, "messages": [USER, tool("c1", "early")]}
    error = assert_envelope(post(server, body, session=session), 400, "invalid_params")
    assert "messages[1]" in error["message"]


def test_an_unanswered_call_before_the_next_user_message_is_400(server, session):
    body = {
        "model": GPT5,
        "messages": [USER, assistant(call("c1"), call("c2")), tool("c1", "ok"), {"role": "user", "content": "and?"}],
    }
    error = assert_envelope(post(server, body, session=session), 400, "invalid_params")
    assert "messages[1]" in error["message"] and "c2" in error["message"]
    with sdk(server, session) as client, pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model=GPT5, messages=body["messages"])
    assert "messages[1]" in raised.value.body["message"]


def test_an_unanswered_call_before_the_next_assistant_message_is_400(server, session):
    body = {"model": GPT5, "messages": [USER, assistant(call("c1")), {"role": "assistant", "content": "moving on"}]}
    error = assert_envelope(post(server, body, session=session), 400, "invalid_params")
    assert "messages[1]" in error["message"]


def test_a_tool_message_without_tool_call_id_is_400(server, session):
    body = {"model": GPT5, "messages": [USER, assistant(call("c1")), {"role": "tool", "content": "ok"}]}
    error = assert_envelope(post(server, body, session=session), 400, "invalid_params")
    assert "messages[2]" in error["message"] and "tool_call_id" in error["message"]


def test_parallel_results_in_any_order_are_accepted(server, session):
    messages = [
        USER,
        assistant(call("c1"), call("c2"), call("c3")),
        tool("c3", "three"),
        tool("c1", "one"),
        tool("c2", "two"),
    ]
    with sdk(server, session) as client:
        completion = client.chat.completions.create(model=GPT5, messages=messages)
    assert completion.choices[0].message.content


def test_a_trailing_assistant_call_without_result_yet_is_accepted(server, session):
    response = post(server, {"model": GPT5, "messages": [USER, assistant(call("c1"))]}, session=session)
    assert response.status == 200, response.body


# --- tool_result matching and templates ----------------------------------------------------------


def test_json_paths_with_list_positions_and_text_matches(server, session):
    result = {"order": {"status": "shipped", "lines": [{"sku": "A-1"}, {"sku": "B-2"}]}}
    response = post(server, answered(result), session=session)
    assert response.headers.get(RULE_HEADER) == "order-shipped"
    assert message_of(response)["content"] == "Line B-2 is shipped."


def test_json_paths_that_do_not_hold_fall_through(server, session):
    pending = {"order": {"status": "pending", "lines": [{"sku": "A-1"}, {"sku": "B-2"}]}}
    assert post(server, answered(pending), session=session).headers.get(RULE_HEADER) is None
    short = {"order": {"status": "shipped", "lines": [{"sku": "B-2"}]}}
    assert post(server, answered(short), session=session).headers.get(RULE_HEADER) is None
    other_tool = {"order": {"status": "shipped", "lines": [{"sku": "A-1"}, {"sku": "B-2"}]}}
    assert post(server, answered(other_tool, name="find_order"), session=session).headers.get(RULE_HEADER) is None


def test_json_scalar_values_compare_by_type(server, session):
    response = post(server, answered({"order": {"total": 42, "paid": True}}), session=session)
    assert response.headers.get(RULE_HEADER) == "order-total"
    assert message_of(response)["content"] == "Total 42"
    assert (
        post(server, answered({"order": {"total": "42", "paid": True}}), session=session).headers.get(RULE_HEADER)
        is None
    )
    assert post(server, answered({"order": {"total": 42, "paid": 1}}), session=session).headers.get(RULE_HEADER) is None


def test_a_text_match_on_a_json_value_reads_it_as_json_text(server, session):
    response = post(server, answered({"order": {"lines": ["A-1", "C-3"]}}), session=session)
    assert response.headers.get(RULE_HEADER) == "order-has-c3"


def test_content_and_name_match_and_the_template_reads_the_raw_content(server, session):
    response = post(server, answered("order A-7 not found"), session=session)
    assert response.headers.get(RULE_HEADER) == "not-found"
    assert message_of(response)["content"] == "Raw: order A-7 not found (lookup_order)"


def test_turn_counts_assistant_messages(server, session):
    messages = [USER, assistant(call("c1")), tool("c1", "{}"), assistant(call("c2")), tool("c2", "order A-7 not found")]
    response = post(server, {"model": GPT5, "messages": messages}, session=session)
    assert response.headers.get(RULE_HEADER) == "third-turn"
    assert message_of(response)["content"] == "third turn"


# --- JSON arguments as written: every JSON value the loader takes reaches the client unchanged ------------

JSON_ARGUMENTS = r"""
rules:
  - name: json-arguments
    reply:
      tool_calls:
        - name: lookup_order
          arguments:
            city: "Zürich 東京 😀"
            escaped: "\u00e9 \ud83c\udf89"
            when: 2024-05-01
            numbers: [0, -7, 2.5, 9223372036854775807, -9223372036854775808]
            flags: [true, false]
            nothing: null
            nested: {list: [[], {}, [{a: [1]}]]}
            "1": quoted key
      stream: {argument_chars: 7}
"""
SENT = (
    '{"city":"Zürich 東京 😀","escaped":"é 🎉","when":"2024-05-01",'
    '"numbers":[0,-7,2.5,9223372036854775807,-9223372036854775808],"flags":[true,false],"nothing":null,'
    '"nested":{"list":[[],{},[{"a":[1]}]]},"1":"quoted key"}'
)


def test_json_arguments_reach_the_sdk_byte_for_byte(make_server, open_client, session):
    client = open_client(make_server(JSON_ARGUMENTS), session)
    completion = client.chat.completions.create(model=GPT5, messages=[USER], tools=[LOOKUP])
    [call] = completion.choices[0].message.tool_calls
    assert call.function.arguments == SENT
    assert json.loads(call.function.arguments)["numbers"][3] == 2**63 - 1

    fragments = []
    with client.chat.completions.create(model=GPT5, messages=[USER], tools=[LOOKUP], stream=True) as stream:
        for chunk in stream:
            for choice in chunk.choices:
                fragments += [delta.function.arguments or "" for delta in choice.delta.tool_calls or ()]
    assert len(fragments) > 2 and "".join(fragments) == SENT
