"""validate_request: ZenMux's exact 400 messages, a request using every field, warnings and helpers."""

import copy
from typing import Any

import orjson
import pytest

from zenmux_emulator.faces.chat.validate import (
    AssistantMessage,
    ChatCompletionRequest,
    CustomTool,
    CustomToolCall,
    DeveloperMessage,
    FunctionTool,
    FunctionToolCall,
    SystemMessage,
    ToolMessage,
    UserMessage,
    ValidatedRequest,
    validate_request,
)
from zenmux_emulator.faces.chat.validate.tools import (
    AllowedToolsChoice,
    CustomChoice,
    FunctionChoice,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    TextResponseFormat,
)
from zenmux_emulator.foundation.errors import RequestRejected

USER = {"role": "user", "content": "Hello"}
NAMED_A = {"type": "function", "function": {"name": "a"}}


def body(**fields: Any) -> dict[str, Any]:
    """A minimal valid body, with `fields` added or overriding."""
    return {"model": "openai/gpt-5", "messages": [USER], **fields}


def rejection(payload: object) -> RequestRejected:
    with pytest.raises(RequestRejected) as caught:
        validate_request(payload)
    return caught.value


def message_for(payload: object) -> str:
    error = rejection(payload)
    assert (error.status, error.type) == (400, "invalid_params")
    return error.message


FULL_REQUEST: dict[str, Any] = {
    "model": "anthropic/claude-sonnet-4.5",
    "messages": [
        {"role": "developer", "content": "Follow the rules.", "name": "dev"},
        {
            "role": "system",
            "content": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        },
        {
            "role": "user",
            "name": "ann",
            "content": [
                {"type": "text", "text": "Look at this", "cache_control": {"type": "ephemeral"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "file", "file": {"file_id": "file-1", "filename": "a.pdf"}},
                {"type": "file", "file": {"file_data": "JVBERi0="}},
            ],
        },
        {
            "role": "assistant",
            "content": "",
            "name": "bot",
            "refusal": None,
            "audio": {"id": "audio_1"},
            "reasoning": "I should call the tools.",
            "reasoning_details": [
                {
                    "type": "reasoning.text",
                    "text": "thinking",
                    "signature": "c2ln",
                    "format": "anthropic-claude-v1",
                    "index": 0,
                },
                {
                    "type": "reasoning.encrypted",
                    "id": "rs_1",
                    "data": "b3BhcXVl",
                    "format": "openai-responses-v1",
                    "index": "0",
                },
            ],
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {"id": "call_2", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny", "name": "get_weather"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "1"}]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't."}]},
        {"role": "assistant", "content": None, "function_call": {"name": "legacy", "arguments": "{}"}},
        {"role": "user", "content": "Thanks"},
    ],
    "max_completion_tokens": 1024,
    "temperature": 0.7,
    "top_p": 0.9,
    "n": 1,
    "frequency_penalty": -1.5,
    "presence_penalty": 2,
    "stop": ["END", "STOP"],
    "logit_bias": {"50256": -100, "42": 3.5},
    "logprobs": True,
    "top_logprobs": 5,
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": True,
            },
        },
        {
            "type": "custom",
            "custom": {
                "name": "run_sql",
                "description": "Run SQL",
                "format": {"type": "grammar", "grammar": {"definition": "start: /.+/", "syntax": "lark"}},
            },
        },
        {"type": "custom", "custom": {"name": "free_text", "format": {"type": "text"}}},
    ],
    "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    "parallel_tool_calls": False,
    "reasoning_effort": "high",
    "verbosity": "low",
    "web_search_options": {
        "search_context_size": "medium",
        "user_location": {"type": "approximate", "approximate": {"city": "Paris", "country": "FR"}},
    },
    "metadata": {"team": "search", "run": "42"},
    "stream": True,
    "stream_options": {"include_usage": True, "include_obfuscation": False},
    "usage": {"include": True},
    "include_reasoning": True,
    "reasoning": {"enabled": True, "effort": "xhigh", "max_tokens": 2048, "exclude": False},
    "response_format": {
        "type": "json_schema",
        "json_schema": {
            "name": "weather-report",
            "description": "A report",
            "schema": {"type": "object"},
            "strict": True,
        },
    },
    "provider": {
        "routing": {"type": "order", "primary_factor": "latency", "providers": ["anthropic/anthropic_endpoint"]},
        "fallback": "google/gemini-2.5-flash-lite",
    },
    "model_routing_config": {
        "available_models": ["openai/gpt-5", "anthropic/claude-sonnet-4.5"],
        "preference": "balanced",
        "task_info": {"task_type": "chat", "complexity": "high", "additional_properties": {"lang": "en"}},
        "additional_properties": {"trace": True},
    },
}


# --- ZenMux's exact messages ------------------------------------------------------------------

NOT_AN_OBJECT = "Request body must be a JSON object"


@pytest.mark.parametrize("payload", [[], [body()], "text", None, 42, True])
def test_a_body_that_is_not_an_object_is_rejected(payload: object) -> None:
    assert message_for(payload) == NOT_AN_OBJECT


EXACT_MESSAGES = [
    ({"messages": [USER]}, "Parameter model is required"),
    (body(model=None), "Parameter model is required"),
    (body(model=""), "Parameter model is required"),
    (body(model=5), "Parameter model is not valid: expected a string"),
    (body(model=["openai/gpt-5"]), "Parameter model is not valid: expected a string"),
    ({"model": "openai/gpt-5"}, "Parameter messages is required"),
    (body(messages=None), "Parameter messages is required"),
    (body(messages={"role": "user", "content": "hi"}), "Parameter messages is not valid: expected an array"),
    (body(messages="hi"), "Parameter messages is not valid: expected an array"),
    (body(messages=[]), "Parameter messages can not be empty"),
    (body(messages=[USER, None]), "Parameter messages can not contain null elements"),
    (body(messages=[{"role": "user"}]), "Parameter messages can not contain elements without content"),
    (
        body(messages=[{"role": "system", "content": None}]),
        "Parameter messages can not contain elements without content",
    ),
    (body(messages=[{"role": "assistant"}]), "Parameter messages can not contain elements without content"),
    (
        body(messages=[{"role": "assistant", "content": None, "tool_calls": []}]),
        "Parameter messages can not contain elements without content",
    ),
    (
        body(messages=[{"role": "tool", "tool_call_id": "call_1", "content": None}]),
        "Parameter messages can not contain elements without content",
    ),
    (
        body(stream_options={"include_usage": True}),
        "Parameter stream_options is not supported while stream is false",
    ),
    (
        body(stream=False, stream_options={"include_usage": True}),
        "Parameter stream_options is not supported while stream is false",
    ),
    (body(n=2), "Parameter n grater than 1 is not supported"),
    (body(n=128), "Parameter n grater than 1 is not supported"),
    (body(temperature=-0.1), "Parameter temperature is not valid"),
    (body(temperature=-1), "Parameter temperature is not valid"),
    (
        body(stream=True, stream_options={"include_usage": True}, usage={"include": False}),
        "Parameter stream_options.include_usage conflict with usage.include",
    ),
    (
        body(stream=True, stream_options={"include_usage": False}, usage={"include": True}),
        "Parameter stream_options.include_usage conflict with usage.include",
    ),
    (
        body(include_reasoning=True, reasoning={"exclude": True}),
        "Parameter include_reasoning conflict with reasoning.exclude",
    ),
    (
        body(include_reasoning=False, reasoning={"exclude": False}),
        "Parameter include_reasoning conflict with reasoning.exclude",
    ),
    (body(provider={"routing": {"type": "fastest"}}), "Parameter type of provider.routing is not valid"),
    (body(provider={"routing": {"providers": ["openai"]}}), "Parameter type of provider.routing is not valid"),
    (body(provider={"routing": {"type": 1}}), "Parameter type of provider.routing is not valid"),
    (
        body(provider={"routing": {"type": "priority", "providers": []}}),
        "Parameter providers of provider.routing is not valid",
    ),
    (body(provider={"routing": {"type": "order"}}), "Parameter providers of provider.routing is not valid"),
]


@pytest.mark.parametrize(("payload", "expected"), EXACT_MESSAGES)
def test_zenmux_exact_messages(payload: dict[str, Any], expected: str) -> None:
    assert message_for(payload) == expected


def test_exact_checks_win_over_model_errors_and_run_in_order() -> None:
    # temperature is also a bad type for the model, and n > 1 is checked before temperature < 0
    assert message_for(body(n=3, temperature=-1, top_p="x")) == "Parameter n grater than 1 is not supported"
    # the content check comes before the role is even looked at
    assert message_for(body(messages=[{"role": "function"}])) == (
        "Parameter messages can not contain elements without content"
    )
    # messages are checked before stream_options
    assert message_for(body(messages=[], stream_options={})) == "Parameter messages can not be empty"


@pytest.mark.parametrize(
    "payload",
    [
        body(stream=True, stream_options={"include_usage": True}, usage={"include": True}),
        body(stream_options=None),
        body(include_reasoning=True, reasoning={"exclude": False}),
        body(provider={"routing": {"type": "priority", "primary_factor": "price"}}),
        body(provider={"routing": {"type": "round_robin", "providers": ["openai", "anthropic"]}, "fallback": "true"}),
        body(temperature=0, n=1),
        body(
            messages=[
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
                }
            ]
        ),
        body(messages=[{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}]),
    ],
)
def test_combinations_zenmux_allows(payload: dict[str, Any]) -> None:
    assert isinstance(validate_request(payload), ValidatedRequest)


# --- a request using every field ------------------------------------------------------------


def test_full_request_validates() -> None:
    result = validate_request(copy.deepcopy(FULL_REQUEST))
    request = result.request
    assert result.warnings == ()
    assert [type(message) for message in request.messages] == [
        DeveloperMessage,
        SystemMessage,
        UserMessage,
        AssistantMessage,
        ToolMessage,
        ToolMessage,
        AssistantMessage,
        AssistantMessage,
        UserMessage,
    ]
    assistant = request.messages[3]
    assert isinstance(assistant, AssistantMessage) and assistant.tool_calls is not None
    assert [type(call) for call in assistant.tool_calls] == [FunctionToolCall, CustomToolCall]
    assert request.tools is not None and [type(tool) for tool in request.tools] == [
        FunctionTool,
        CustomTool,
        CustomTool,
    ]
    assert isinstance(request.tool_choice, FunctionChoice)
    assert isinstance(request.response_format, JsonSchemaResponseFormat)
    assert request.response_format.json_schema.schema_ == {"type": "object"}
    assert request.stop_sequences == ("END", "STOP")
    assert request.wants_usage_in_stream is True
    assert request.provider is not None and request.provider.routing is not None
    assert request.provider.routing.providers == ["anthropic/anthropic_endpoint"]
    assert request.model_routing_config is not None and request.model_routing_config.task_info is not None
    assert request.model_routing_config.task_info.task_type == "chat"
    assert request.reasoning is not None and request.reasoning.effort == "xhigh"
    assert request.metadata == {"team": "search", "run": "42"}
    assert request.logit_bias == {"50256": -100, "42": 3.5}


def test_full_request_survives_a_json_round_trip() -> None:
    assert (
        validate_request(orjson.loads(orjson.dumps(FULL_REQUEST))).request
        == validate_request(copy.deepcopy(FULL_REQUEST)).request
    )


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", "none"),
        ("auto", "auto"),
        ("required", "required"),
        ({"type": "function", "function": {"name": "get_weather"}}, FunctionChoice),
        ({"type": "custom", "custom": {"name": "run_sql"}}, CustomChoice),
        (
            {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [NAMED_A]}},
            AllowedToolsChoice,
        ),
        ({"type": "allowed_tools", "mode": "auto", "tools": [NAMED_A]}, AllowedToolsChoice),
    ],
)
def test_every_tool_choice_form(choice: object, expected: object) -> None:
    tools = [
        {"type": "function", "function": {"name": "get_weather"}},
        {"type": "custom", "custom": {"name": "run_sql"}},
    ]
    tool_choice = validate_request(body(tool_choice=choice, tools=tools)).request.tool_choice
    if isinstance(expected, str):
        assert tool_choice == expected
    else:
        assert isinstance(tool_choice, expected)  # type: ignore[arg-type]


def test_flat_allowed_tools_is_nested() -> None:
    choice = {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "function": {"name": "a"}}]}
    tool_choice = validate_request(body(tool_choice=choice)).request.tool_choice
    assert isinstance(tool_choice, AllowedToolsChoice)
    assert tool_choice.allowed_tools.mode == "auto"
    assert tool_choice.allowed_tools.tools == [{"type": "function", "function": {"name": "a"}}]


@pytest.mark.parametrize(
    ("response_format", "expected"),
    [
        ({"type": "text"}, TextResponseFormat),
        ({"type": "json_object"}, JsonObjectResponseFormat),
        ({"type": "json_schema", "json_schema": {"name": "x"}}, JsonSchemaResponseFormat),
    ],
)
def test_every_response_format(response_format: dict[str, Any], expected: type) -> None:
    assert isinstance(validate_request(body(response_format=response_format)).request.response_format, expected)


def test_web_search_location_may_be_flat_or_nested() -> None:
    where = {"city": "Paris", "country": "FR", "timezone": "Europe/Paris"}
    flat = {"user_location": {"type": "approximate", **where}}
    nested = {"user_location": {"type": "approximate", "approximate": where}}
    locations = []
    for options in (flat, nested):
        web = validate_request(body(web_search_options=options)).request.web_search_options
        assert web is not None and web.user_location is not None
        locations.append(web.user_location.location())
    assert locations[0] == locations[1]
    assert locations[0].city == "Paris" and locations[0].timezone == "Europe/Paris"


def test_empty_web_search_options_enables_search() -> None:
    assert validate_request(body(web_search_options={})).request.web_search_options is not None


# --- helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, False),
        ({"stream": True, "stream_options": {"include_usage": True}}, True),
        ({"stream": True, "stream_options": {"include_obfuscation": True}}, False),
        ({"usage": {"include": True}}, True),
        ({"usage": {"include": False}}, False),
    ],
)
def test_wants_usage_in_stream(fields: dict[str, Any], expected: bool) -> None:
    assert validate_request(body(**fields)).request.wants_usage_in_stream is expected


@pytest.mark.parametrize(
    ("stop", "expected"),
    [(None, ()), ("END", ("END",)), (["a", "b", "c", "d"], ("a", "b", "c", "d")), ([], ())],
)
def test_stop_sequences(stop: object, expected: tuple[str, ...]) -> None:
    assert validate_request(body(stop=stop)).request.stop_sequences == expected


def test_request_is_immutable() -> None:
    request = validate_request(body()).request
    with pytest.raises(ValueError):
        request.model = "other"  # type: ignore[misc]


def test_model_is_built_once() -> None:
    assert ChatCompletionRequest.__pydantic_complete__
    # two validations share one compiled validator
    assert validate_request(body()).request == validate_request(body()).request


# --- warnings -----------------------------------------------------------------------------------


def test_unsupported_and_unknown_fields_are_ignored_with_warnings_in_body_order() -> None:
    payload = {"seed": 7, "model": "openai/gpt-5", "foo": 1, "messages": [USER], "max_tokens": 100, "user": "u-1"}
    result = validate_request(payload)
    assert result.warnings == (
        "seed is not supported by ZenMux and was ignored",
        "unknown parameter 'foo' was ignored",
        "max_tokens is not supported by ZenMux and was ignored (use max_completion_tokens)",
        "user is not supported by ZenMux and was ignored",
    )
    assert result.request.max_completion_tokens is None
    assert "seed" not in result.request.model_dump()


@pytest.mark.parametrize(
    "field",
    [
        "audio",
        "modalities",
        "functions",
        "function_call",
        "prompt_cache_key",
        "prompt_cache_retention",
        "safety_identifier",
        "store",
        "service_tier",
        "prediction",
    ],
)
def test_every_unsupported_field_warns(field: str) -> None:
    (warning,) = validate_request(body(**{field: "anything"})).warnings
    assert warning.startswith(f"{field} is not supported by ZenMux and was ignored")


def test_unsupported_fields_are_not_validated() -> None:
    result = validate_request(body(max_tokens="lots", functions=5, audio={"voice": 1}))
    assert len(result.warnings) == 3


def test_null_unsupported_field_is_silent_but_null_unknown_key_warns() -> None:
    assert validate_request(body(seed=None, extra_thing=None)).warnings == (
        "unknown parameter 'extra_thing' was ignored",
    )


def test_warnings_are_ascii_even_for_odd_keys() -> None:
    (warning,) = validate_request(body(**{"caf\u00e9\nX-Injected: 1": True})).warnings
    assert warning.isascii() and "\n" not in warning
    assert warning == "unknown parameter 'caf\\xe9\\nX-Injected: 1' was ignored"
