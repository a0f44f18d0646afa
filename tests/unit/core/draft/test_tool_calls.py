"""render/tool_calls.py: id styles, the wire form of scripted calls, and what tool_choice,
parallel_tool_calls and unoffered tools do to them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from faker import Faker
from jsonschema import Draft202012Validator, FormatChecker

from zenmux_emulator.core.draft.tool_calls import call_id, tool_calls
from zenmux_emulator.faces.common.chat_messages import tool_options
from zenmux_emulator.scenario.schema import ToolCallSpec

CALL_ID = re.compile(r"^call_[0-9A-Za-z]{24}$")
TOOLU_ID = re.compile(r"^toolu_01[0-9A-Za-z]{22}$")

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city", "unit"],
    "additionalProperties": False,
}
EVENT_SCHEMA = {
    "type": "object",
    "$defs": {
        "who": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}, "required": ["email"]}
    },
    "properties": {
        "day": {"type": "string", "format": "date"},
        "guests": {"type": "array", "items": {"$ref": "#/$defs/who"}, "minItems": 1},
        "size": {"type": "integer", "minimum": 2, "maximum": 4},
    },
    "required": ["day", "guests", "size"],
}
BODY = {
    "tools": [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}},
        {"type": "function", "function": {"name": "plan_event", "parameters": EVENT_SCHEMA}},
        {"type": "custom", "custom": {"name": "run_sql"}},
        {"type": "function", "function": {"name": "no_params"}},
    ]
}


def faker(seed: int = 1) -> Faker:
    f = Faker()
    f.seed_instance(seed)
    return f


def make(
    specs: list[ToolCallSpec] | None,
    choice: str = "auto",
    body: dict[str, Any] = BODY,
    model: str = "openai/gpt-5",
    parts: tuple[object, ...] = (1, 2, "rule"),
    rule: str | None = "rule",
    **options: Any,
) -> tuple[list[dict[str, Any]], list[str]]:
    warnings: list[str] = []
    calls = tool_calls(specs, tool_options({**body, **options}, choice), model, faker(), parts, rule, warnings)
    return calls, warnings


# --- ids ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("openai/gpt-5", CALL_ID),
        ("anthropic/claude-sonnet-4.5", TOOLU_ID),
        ("google/gemini-2.5-pro", CALL_ID),
        ("x-ai/grok-4", CALL_ID),
        ("moonshotai/kimi-k2", CALL_ID),
    ],
)
def test_id_style_by_family(model: str, style: re.Pattern[str]):
    ids = {call_id(model, "seed", n) for n in range(50)}
    assert len(ids) == 50
    assert all(style.match(i) for i in ids), ids


def test_ids_are_deterministic():
    assert call_id("openai/gpt-5", 1, "a", 0) == call_id("openai/gpt-5", 1, "a", 0)
    assert call_id("openai/gpt-5", 1, "a", 0) != call_id("openai/gpt-5", 1, "a", 1)
    assert call_id("openai/gpt-5", 1, "a", 0) != call_id("openai/gpt-5", 2, "a", 0)


def test_calls_get_distinct_ids_by_position_and_keep_scripted_ones():
    specs = [
        ToolCallSpec(name="get_weather", arguments={"city": "Paris"}),
        ToolCallSpec(name="get_weather", arguments={"city": "Rome"}, id="mine"),
        ToolCallSpec(name="get_weather", arguments={"city": "Oslo"}),
    ]
    calls, _ = make(specs)
    assert calls[1]["id"] == "mine"
    assert CALL_ID.match(calls[0]["id"]) and CALL_ID.match(calls[2]["id"]) and calls[0]["id"] != calls[2]["id"]
    again, _ = make(specs)
    assert again == calls
    anthropic, _ = make(specs, model="anthropic/claude-opus-4.5")
    assert TOOLU_ID.match(anthropic[0]["id"]) and anthropic[1]["id"] == "mine"


# --- wire form ------------------------------------------------------------------------------------


def test_mapping_arguments_become_a_compact_json_string():
    calls, warnings = make([ToolCallSpec(name="get_weather", arguments={"city": "上海", "unit": "celsius"})])
    assert warnings == []
    [call] = calls
    assert set(call) == {"id", "type", "function"}
    assert call["type"] == "function"
    assert call["function"] == {"name": "get_weather", "arguments": '{"city":"上海","unit":"celsius"}'}


def test_string_arguments_are_sent_as_is_even_when_invalid():
    [call], _ = make([ToolCallSpec(name="get_weather", arguments='{"city": "Paris"')])
    assert call["function"]["arguments"] == '{"city": "Paris"'


def test_list_and_missing_arguments():
    [listed], _ = make([ToolCallSpec(name="get_weather", arguments=[1, "two"])])
    assert json.loads(listed["function"]["arguments"]) == [1, "two"]
    [empty], _ = make([ToolCallSpec(name="no_params")])
    assert empty["function"]["arguments"] == "{}"


def test_custom_calls_carry_input():
    [call], _ = make([ToolCallSpec(name="run_sql", type="custom", input="SELECT 1")])
    assert set(call) == {"id", "type", "custom"}
    assert call["type"] == "custom" and call["custom"] == {"name": "run_sql", "input": "SELECT 1"}


# --- tool options ---------------------------------------------------------------------------------


def test_tool_options_read_the_offered_tools_and_parallel_flag():
    options = tool_options(BODY, "auto")
    assert list(options.offered) == ["get_weather", "plan_event", "run_sql", "no_params"]
    assert options.offered["run_sql"]["type"] == "custom"
    assert options.offered["get_weather"]["parameters"] == WEATHER_SCHEMA
    assert options.parallel is True
    assert tool_options({**BODY, "parallel_tool_calls": False}, "auto").parallel is False
    assert tool_options({**BODY, "parallel_tool_calls": True}, "auto").parallel is True
    assert tool_options({}, "none").offered == {}


# --- tool_choice ------------------------------------------------------------------------------------

SCRIPTED = [
    ToolCallSpec(name="get_weather", arguments={"city": "Paris"}),
    ToolCallSpec(name="get_weather", arguments={"city": "Rome"}),
]


def test_none_drops_scripted_calls_with_a_warning_naming_the_rule():
    calls, warnings = make(SCRIPTED, "none")
    assert calls == []
    assert len(warnings) == 1 and "tool_choice is none" in warnings[0] and "'rule'" in warnings[0]
    assert "2" in warnings[0]
    calls, warnings = make(SCRIPTED, "none", rule=None)
    assert calls == [] and "default reply" in warnings[0]


def test_none_without_scripted_calls_is_silent():
    assert make(None, "none") == ([], [])


def test_auto_without_scripted_calls_makes_none():
    assert make(None, "auto") == ([], [])


def test_required_without_scripted_calls_synthesises_a_call_to_the_first_tool():
    [call], warnings = make(None, "required")
    assert warnings == []
    assert call["function"]["name"] == "get_weather"
    assert Draft202012Validator(WEATHER_SCHEMA).is_valid(json.loads(call["function"]["arguments"]))


def test_required_with_scripted_calls_sends_the_scripted_ones():
    calls, _ = make(SCRIPTED, "required")
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "Paris"}, {"city": "Rome"}]


@pytest.mark.parametrize("seed", range(20))
def test_a_named_function_gets_arguments_valid_for_its_schema(seed: int):
    warnings: list[str] = []
    [call] = tool_calls(None, tool_options(BODY, "plan_event"), "openai/gpt-5", faker(seed), (seed,), "r", warnings)
    assert call["function"]["name"] == "plan_event"
    arguments = json.loads(call["function"]["arguments"])
    errors = [
        e.message for e in Draft202012Validator(EVENT_SCHEMA, format_checker=FormatChecker()).iter_errors(arguments)
    ]
    assert errors == [], arguments
    assert warnings == []


def test_synthesised_calls_are_deterministic():
    one, _ = make(None, "plan_event")
    two, _ = make(None, "plan_event")
    assert one == two


def test_a_named_custom_tool_gets_a_text_input():
    [call], _ = make(None, "run_sql")
    assert call["type"] == "custom" and call["custom"]["name"] == "run_sql"
    assert isinstance(call["custom"]["input"], str) and call["custom"]["input"]


def test_a_tool_without_parameters_gets_an_empty_object():
    [call], _ = make(None, "no_params")
    assert json.loads(call["function"]["arguments"]) == {}


def test_forcing_a_tool_that_is_not_offered_makes_no_call():
    assert make(None, "elsewhere") == ([], [])
    assert make(None, "required", body={}) == ([], [])


def test_parallel_false_keeps_the_first_call_and_warns():
    calls, warnings = make(SCRIPTED, "auto", parallel_tool_calls=False)
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "Paris"}]
    assert len(warnings) == 1 and "parallel_tool_calls is false" in warnings[0]


def test_parallel_false_with_one_call_does_not_warn():
    calls, warnings = make(SCRIPTED[:1], "auto", parallel_tool_calls=False)
    assert len(calls) == 1 and warnings == []


def test_a_call_to_an_unoffered_tool_is_sent_and_warned():
    calls, warnings = make(
        [ToolCallSpec(name="launch_rocket", arguments={"when": "now"}), ToolCallSpec(name="get_weather", arguments={})]
    )
    assert [c["function"]["name"] for c in calls] == ["launch_rocket", "get_weather"]
    assert len(warnings) == 1 and "'launch_rocket'" in warnings[0] and "did not offer" in warnings[0]
