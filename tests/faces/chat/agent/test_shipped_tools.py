"""scenarios/tools.yaml through the official openai SDK (sync, async, streaming) and raw HTTP:
every rule it ships — parallel-lookups, forced-booking, custom-grammar-tool, broken-arguments."""

from __future__ import annotations

import json
import re

import openai
import pytest
from jsonschema import Draft202012Validator, FormatChecker

from tests.conftest import SHIPPED
from tests.faces.chat.agent.helpers import (
    ANTHROPIC,
    CALL_ID,
    GET_TIME,
    GET_WEATHER,
    GPT5,
    RULE_HEADER,
    RUN_SQL,
    TOOLU_ID,
    WARNINGS_HEADER,
    accumulate,
    deltas,
    last_warnings,
    message_of,
    sdk_chunks,
    tool_deltas,
)
from tests.faces.chat.contract.helpers import post
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from tests.support.shipped import load_paths

FILE = SHIPPED / "tools.yaml"
COVERED = {"parallel-lookups", "forced-booking", "custom-grammar-tool", "broken-arguments"}

PARALLEL = [
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
    ("get_time", {"timezone": "Asia/Tokyo"}),
]
COMPARE = [{"role": "user", "content": "Please compare the weather in Paris and Tokyo"}]


def test_every_rule_of_tools_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == COVERED


# --- parallel-lookups ---------------------------------------------------------------------------


def test_parallel_lookups_sends_three_calls_with_its_text(client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME])
    assert raw.headers.get(RULE_HEADER) == "parallel-lookups"
    assert WARNINGS_HEADER.lower() not in {k.lower() for k in raw.headers}
    completion = raw.parse()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me look both up."
    calls = choice.message.tool_calls
    assert [(c.type, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("function", name, args) for name, args in PARALLEL
    ]
    assert all(isinstance(c.function.arguments, str) for c in calls)
    assert all(re.match(CALL_ID, c.id) for c in calls)
    assert len({c.id for c in calls}) == 3
    assert_chat_completion(completion.model_dump(exclude_unset=True))


def test_parallel_lookups_arguments_are_compact_json_strings_on_the_wire(shipped, session):
    message = message_of(
        post(shipped, {"model": GPT5, "messages": COMPARE, "tools": [GET_WEATHER, GET_TIME]}, session=session)
    )
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == [
        json.dumps(args, separators=(",", ":")) for _, args in PARALLEL
    ]
    assert set(message["tool_calls"][0]) == {"id", "type", "function"}


def test_parallel_lookups_ids_are_deterministic_and_anthropic_styled_for_anthropic(shipped, session):
    body = {"model": ANTHROPIC, "messages": COMPARE, "tools": [GET_WEATHER, GET_TIME]}
    first = message_of(post(shipped, body, session=session))
    again = message_of(post(shipped, body, session=session + "-other"))
    ids = [c["id"] for c in first["tool_calls"]]
    assert all(re.match(TOOLU_ID, i) for i in ids), ids
    assert ids == [c["id"] for c in again["tool_calls"]]
    openai_ids = [c["id"] for c in message_of(post(shipped, {**body, "model": GPT5}, session=session))["tool_calls"]]
    assert all(re.match(CALL_ID, i) for i in openai_ids), openai_ids


def test_parallel_lookups_stream_ids_equal_the_non_streamed_ids(shipped, session):
    body = {"model": GPT5, "messages": COMPARE, "tools": [GET_WEATHER, GET_TIME]}
    plain = message_of(post(shipped, body, session=session))
    streamed = accumulate(post(shipped, {**body, "stream": True}, session=session).sse().chunks)
    assert [c["id"] for c in streamed["tool_calls"]] == [c["id"] for c in plain["tool_calls"]]
    assert streamed["tool_calls"] == plain["tool_calls"]
    assert streamed["content"] == plain["content"]


def test_parallel_lookups_streams_interleaved_six_character_fragments(shipped, session):
    response = post(
        shipped, {"model": GPT5, "messages": COMPARE, "tools": [GET_WEATHER, GET_TIME], "stream": True}, session=session
    )
    assert response.status == 200
    body = response.sse()
    assert body.done
    chunks = body.chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    calls = tool_deltas(chunks)
    openings = [c for c in calls if "id" in c]
    fragments = [c for c in calls if "id" not in c]
    # each call opens with index, id, type and name, and empty arguments
    assert [o["index"] for o in openings] == [0, 1, 2]
    for opening, (name, _) in zip(openings, PARALLEL, strict=True):
        assert set(opening) == {"index", "id", "type", "function"}
        assert opening["type"] == "function"
        assert opening["function"] == {"name": name, "arguments": ""}
        assert re.match(CALL_ID, opening["id"])
    # fragments carry only the index and a piece of the arguments
    for fragment in fragments:
        assert set(fragment) == {"index", "function"}, fragment
        assert set(fragment["function"]) == {"arguments"}, fragment
        assert 1 <= len(fragment["function"]["arguments"]) <= 6
    for index, (_, args) in enumerate(PARALLEL):
        pieces = [f["function"]["arguments"] for f in fragments if f["index"] == index]
        assert all(len(p) == 6 for p in pieces[:-1]), pieces
        assert json.loads("".join(pieces)) == args
    # interleaved: a fragment of a lower index comes after one of a higher index
    order = [f["index"] for f in fragments]
    assert order != sorted(order)
    assert order[:3] == [0, 1, 2]
    # content first, then the calls, then one finish chunk with tool_calls
    kinds = ["content" if d.get("content") else "tool" if d.get("tool_calls") else "other" for d in deltas(chunks)]
    assert kinds.index("tool") > max(i for i, k in enumerate(kinds) if k == "content")
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finishes == ["tool_calls"]


def test_parallel_lookups_reassembled_by_the_sdk_stream_helper(client: openai.OpenAI):
    with client.chat.completions.stream(model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME]) as stream:
        events = [event.type for event in stream]
        final = stream.get_final_completion()
    assert "tool_calls.function.arguments.delta" in events
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me look both up."
    assert [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls] == PARALLEL


def test_parallel_lookups_reassembled_by_hand_from_an_sdk_stream(client: openai.OpenAI):
    stream = client.chat.completions.create(model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME], stream=True)
    message = accumulate(sdk_chunks(stream))
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]] == PARALLEL


async def test_parallel_lookups_async_streamed_and_not(aclient: openai.AsyncOpenAI):
    completion = await aclient.chat.completions.create(model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME])
    assert [json.loads(c.function.arguments) for c in completion.choices[0].message.tool_calls] == [
        args for _, args in PARALLEL
    ]
    stream = await aclient.chat.completions.create(
        model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME], stream=True
    )
    chunks = [chunk.to_dict() async for chunk in stream]
    message = accumulate(chunks)
    assert [c["id"] for c in message["tool_calls"]] == [c.id for c in completion.choices[0].message.tool_calls]
    assert [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]] == [args for _, args in PARALLEL]


def test_parallel_lookups_with_tool_choice_none_sends_no_calls_and_warns(shipped, session, client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(
        model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME], tool_choice="none"
    )
    assert raw.headers.get(RULE_HEADER) == "parallel-lookups"
    warning = raw.headers.get(WARNINGS_HEADER)
    assert warning and "tool_choice is none" in warning
    choice = raw.parse().choices[0]
    assert not choice.message.tool_calls
    assert choice.message.content == "Let me look both up."
    assert choice.finish_reason == "stop"
    assert any("tool_choice is none" in w for w in last_warnings(shipped, session))


def test_parallel_lookups_with_tool_choice_none_streams_no_tool_deltas(shipped, session):
    response = post(
        shipped,
        {"model": GPT5, "messages": COMPARE, "tools": [GET_WEATHER, GET_TIME], "tool_choice": "none", "stream": True},
        session=session,
    )
    assert "tool_choice is none" in response.headers.get(WARNINGS_HEADER, "")
    chunks = response.sse().chunks
    assert tool_deltas(chunks) == []
    assert accumulate(chunks)["content"] == "Let me look both up."


def test_parallel_lookups_with_parallel_tool_calls_false_sends_only_the_first(shipped, session, client):
    raw = client.chat.completions.with_raw_response.create(
        model=GPT5, messages=COMPARE, tools=[GET_WEATHER, GET_TIME], parallel_tool_calls=False
    )
    assert "parallel_tool_calls is false" in (raw.headers.get(WARNINGS_HEADER) or "")
    calls = raw.parse().choices[0].message.tool_calls
    assert len(calls) == 1
    assert (calls[0].function.name, json.loads(calls[0].function.arguments)) == PARALLEL[0]
    assert any("parallel_tool_calls is false" in w for w in last_warnings(shipped, session))


def test_parallel_lookups_calling_an_unoffered_tool_is_sent_but_warned(shipped, session):
    response = post(shipped, {"model": GPT5, "messages": COMPARE, "tools": [GET_WEATHER]}, session=session)
    message = message_of(response)
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather", "get_weather", "get_time"]
    warning = response.headers.get(WARNINGS_HEADER, "")
    assert "'get_time'" in warning and "did not offer" in warning
    assert any("get_time" in w and "did not offer" in w for w in last_warnings(shipped, session))


# --- forced-booking -----------------------------------------------------------------------------

BOOKING_SCHEMA = {
    "type": "object",
    "$defs": {
        "person": {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 2}, "email": {"type": "string", "format": "email"}},
            "required": ["name", "email"],
            "additionalProperties": False,
        },
    },
    "properties": {
        "restaurant": {"type": "string", "enum": ["Chez Paul", "Sushi Zen", "Trattoria Roma"]},
        "date": {"type": "string", "format": "date"},
        "party_size": {"type": "integer", "minimum": 1, "maximum": 12},
        "contact": {"$ref": "#/$defs/person"},
        "guests": {"type": "array", "items": {"$ref": "#/$defs/person"}, "minItems": 1, "maxItems": 3},
        "preferences": {
            "type": "object",
            "properties": {
                "seating": {"enum": ["indoor", "outdoor"]},
                "high_chair": {"type": "boolean"},
                "budget": {"type": "number", "minimum": 10, "maximum": 200},
            },
            "required": ["seating"],
        },
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 12}},
    },
    "required": ["restaurant", "date", "party_size", "contact", "guests", "preferences"],
    "additionalProperties": False,
}
BOOK_TABLE = {"type": "function", "function": {"name": "book_table", "parameters": BOOKING_SCHEMA}}
BOOK = [{"role": "user", "content": "Please book a table for Friday"}]


def booking_validator() -> Draft202012Validator:
    return Draft202012Validator(BOOKING_SCHEMA, format_checker=FormatChecker())


def test_forced_booking_synthesises_arguments_that_validate_against_the_schema(client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(
        model=GPT5, messages=BOOK, tools=[BOOK_TABLE], tool_choice="required"
    )
    assert raw.headers.get(RULE_HEADER) == "forced-booking"
    choice = raw.parse().choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "book_table"
    assert re.match(CALL_ID, call.id)
    arguments = json.loads(call.function.arguments)
    errors = [e.message for e in booking_validator().iter_errors(arguments)]
    assert errors == [], (arguments, errors)


def test_forced_booking_is_deterministic_across_identical_requests(shipped, session):
    body = {"model": GPT5, "messages": BOOK, "tools": [BOOK_TABLE], "tool_choice": "required"}
    one = message_of(post(shipped, body, session=session))
    two = message_of(post(shipped, body, session=session + "-again"))
    assert one["tool_calls"] == two["tool_calls"]
    other = message_of(
        post(shipped, {**body, "messages": [{"role": "user", "content": "book a table for ten"}]}, session=session)
    )
    assert other["tool_calls"][0]["id"] != one["tool_calls"][0]["id"]


def test_forced_booking_streamed_equals_not_streamed(shipped, session):
    body = {"model": GPT5, "messages": BOOK, "tools": [BOOK_TABLE], "tool_choice": "required"}
    plain = message_of(post(shipped, body, session=session))
    response = post(shipped, {**body, "stream": True}, session=session)
    assert response.headers.get(RULE_HEADER) == "forced-booking"
    chunks = response.sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    assert accumulate(chunks)["tool_calls"] == plain["tool_calls"]


def test_forced_booking_picks_the_first_offered_tool_with_required(shipped, session):
    body = {"model": GPT5, "messages": BOOK, "tools": [BOOK_TABLE, GET_WEATHER], "tool_choice": "required"}
    [call] = message_of(post(shipped, body, session=session))["tool_calls"]
    assert call["function"]["name"] == "book_table"
    assert booking_validator().is_valid(json.loads(call["function"]["arguments"]))


def test_forced_booking_needs_required_tool_choice(shipped, session):
    response = post(shipped, {"model": GPT5, "messages": BOOK, "tools": [BOOK_TABLE]}, session=session)
    assert response.headers.get(RULE_HEADER) != "forced-booking"
    assert "tool_calls" not in message_of(response)


# --- custom-grammar-tool ------------------------------------------------------------------------

SQL = [{"role": "user", "content": "write sql that counts the orders"}]


def test_custom_grammar_tool_returns_a_custom_call(client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(model=GPT5, messages=SQL, tools=[RUN_SQL])
    assert raw.headers.get(RULE_HEADER) == "custom-grammar-tool"
    choice = raw.parse().choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = choice.message.tool_calls
    assert call.type == "custom"
    assert call.custom.name == "run_sql"
    assert call.custom.input == "SELECT count(*) FROM orders"
    assert re.match(CALL_ID, call.id)


def test_custom_grammar_tool_on_the_wire(shipped, session):
    message = message_of(post(shipped, {"model": ANTHROPIC, "messages": SQL, "tools": [RUN_SQL]}, session=session))
    [call] = message["tool_calls"]
    assert set(call) == {"id", "type", "custom"}
    assert call["type"] == "custom"
    assert call["custom"] == {"name": "run_sql", "input": "SELECT count(*) FROM orders"}
    assert re.match(TOOLU_ID, call["id"])


def test_custom_grammar_tool_streams_custom_deltas(shipped, session):
    plain = message_of(post(shipped, {"model": GPT5, "messages": SQL, "tools": [RUN_SQL]}, session=session))
    chunks = (
        post(shipped, {"model": GPT5, "messages": SQL, "tools": [RUN_SQL], "stream": True}, session=session)
        .sse()
        .chunks
    )
    calls = tool_deltas(chunks)
    # OpenAI's chunk schema only knows function calls: the custom deltas are checked here by hand
    opening, *fragments = calls
    assert opening == {
        "index": 0,
        "id": plain["tool_calls"][0]["id"],
        "type": "custom",
        "custom": {"name": "run_sql", "input": ""},
    }
    assert fragments
    for fragment in fragments:
        assert set(fragment) == {"index", "custom"} and fragment["index"] == 0
        assert set(fragment["custom"]) == {"input"}
    assert "".join(f["custom"]["input"] for f in fragments) == "SELECT count(*) FROM orders"
    for chunk in chunks:
        if not (chunk["choices"] and chunk["choices"][0]["delta"].get("tool_calls")):
            assert_chat_chunk(chunk)
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]] == [
        "tool_calls"
    ]


def test_custom_grammar_tool_needs_run_sql_offered(shipped, session):
    response = post(shipped, {"model": GPT5, "messages": SQL, "tools": [GET_WEATHER]}, session=session)
    assert response.headers.get(RULE_HEADER) != "custom-grammar-tool"


# --- broken-arguments ---------------------------------------------------------------------------

BROKEN = [{"role": "user", "content": "send me broken json please"}]


def test_broken_arguments_arrive_as_the_raw_invalid_string(client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(model=GPT5, messages=BROKEN, tools=[GET_WEATHER])
    assert raw.headers.get(RULE_HEADER) == "broken-arguments"
    [call] = raw.parse().choices[0].message.tool_calls
    assert call.id == "call_broken_args_001"
    assert call.function.name == "get_weather"
    assert call.function.arguments == '{"city": "Paris"'
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.function.arguments)


def test_broken_arguments_stream_reassembles_to_the_same_string(shipped, session):
    chunks = (
        post(shipped, {"model": GPT5, "messages": BROKEN, "tools": [GET_WEATHER], "stream": True}, session=session)
        .sse()
        .chunks
    )
    for chunk in chunks:
        assert_chat_chunk(chunk)
    [call] = accumulate(chunks)["tool_calls"]
    assert call == {
        "id": "call_broken_args_001",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"'},
    }


def test_broken_arguments_without_any_tool_offered_is_sent_and_warned(shipped, session):
    # The issue: "A scripted call to a tool the request did not offer is answered as scripted but warned."
    # Here the request offers no tool at all (and sets no tool_choice).
    response = post(shipped, {"model": GPT5, "messages": BROKEN}, session=session)
    assert response.headers.get(RULE_HEADER) == "broken-arguments"
    message = message_of(response)
    assert [c["id"] for c in message.get("tool_calls") or []] == ["call_broken_args_001"]
    assert "did not offer" in response.headers.get(WARNINGS_HEADER, "")
