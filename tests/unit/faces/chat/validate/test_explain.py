"""Messages for model errors: one problem, named by its JSON path, with the rest counted."""

from typing import Any

import pytest
from pydantic import ValidationError

from zenmux_emulator.faces.chat.validate import ChatCompletionRequest, validate_request
from zenmux_emulator.faces.chat.validate.explain import explain, show
from zenmux_emulator.foundation.errors import RequestRejected

USER = {"role": "user", "content": "Hello"}
GRAMMAR = {"definition": "start: /.+/", "syntax": "ebnf"}
REFUSAL_AND_TEXT = [{"type": "refusal", "refusal": "no"}, {"type": "text", "text": "x"}]


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "openai/gpt-5", "messages": [USER], **fields}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(parts)}


def message_for(payload: dict[str, Any]) -> str:
    with pytest.raises(RequestRejected) as caught:
        validate_request(payload)
    assert (caught.value.status, caught.value.type) == (400, "invalid_params")
    return caught.value.message


PATH_MESSAGES = [
    (
        body(messages=[USER, USER, user({"type": "video", "video": {}})]),
        "Parameter messages[2].content[0].type is not valid: expected one of 'text', 'image_url', "
        "'input_audio', 'file', got 'video'",
    ),
    (
        body(messages=[user({"type": "image_url", "image_url": {"url": "u", "detail": "ultra"}})]),
        "Parameter messages[0].content[0].image_url.detail is not valid: expected one of 'auto', 'low', 'high', "
        "got 'ultra'",
    ),
    (
        body(messages=[user({"type": "image_url", "image_url": {"detail": "low"}})]),
        "Parameter messages[0].content[0].image_url.url is required",
    ),
    (body(messages=[user({"text": "no type"})]), "Parameter messages[0].content[0].type is required"),
    (body(messages=[user({"type": "text"})]), "Parameter messages[0].content[0].text is required"),
    (
        body(messages=[user({"type": "text", "text": 5})]),
        "Parameter messages[0].content[0].text is not valid: expected a string, got 5",
    ),
    (
        body(messages=[user({"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2h"}})]),
        "Parameter messages[0].content[0].cache_control.ttl is not valid: expected one of '5m', '1h', got '2h'",
    ),
    (
        body(messages=[user({"type": "text", "text": "x", "cache_control": {}})]),
        "Parameter messages[0].content[0].cache_control.type is required",
    ),
    (
        body(messages=[user({"type": "input_audio", "input_audio": {"data": "AAAA"}})]),
        "Parameter messages[0].content[0].input_audio.format is required",
    ),
    (
        body(messages=[{"role": "user", "content": 5}]),
        "Parameter messages[0].content is not valid: expected a string or an array of content parts, got 5",
    ),
    (
        body(messages=[{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}]),
        "Parameter messages[0].content[0].type is not valid: expected 'text', got 'image_url' (and 1 more problem)",
    ),
    (
        body(messages=[{"role": "function", "name": "f", "content": "x"}]),
        "Parameter messages[0].role is not valid: expected one of 'developer', 'system', 'user', 'assistant', "
        "'tool', got 'function'",
    ),
    (body(messages=[{"content": "x"}]), "Parameter messages[0].role is required"),
    (body(messages=["hi"]), 'Parameter messages[0] is not valid: expected an object, got "hi"'),
    (body(messages=[USER, {"role": "tool", "content": "42"}]), "Parameter messages[1].tool_call_id is required"),
    (
        body(messages=[{"role": "tool", "content": "42", "tool_call_id": 7}]),
        "Parameter messages[0].tool_call_id is not valid: expected a string, got 7",
    ),
    (
        body(messages=[{"role": "assistant", "content": REFUSAL_AND_TEXT}]),
        "Parameter messages[0].content is not valid: expected text parts or exactly one refusal part",
    ),
    (
        body(
            messages=[{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}]}]
        ),
        "Parameter messages[0].tool_calls[0].function.arguments is required",
    ),
    (
        body(messages=[{"role": "assistant", "tool_calls": [{"id": "c", "type": "web", "web": {}}]}]),
        "Parameter messages[0].tool_calls[0].type is not valid: expected one of 'function', 'custom', got 'web'",
    ),
    (
        body(messages=[{"role": "assistant", "content": "x", "reasoning_details": [{"text": "t"}]}]),
        "Parameter messages[0].reasoning_details[0].type is required",
    ),
    (
        body(messages=[{"role": "assistant", "content": "x", "reasoning_details": [{"type": "r", "index": 1.5}]}]),
        "Parameter messages[0].reasoning_details[0].index is not valid: expected an integer or a string, got 1.5",
    ),
    (body(temperature="hot"), 'Parameter temperature is not valid: expected a number, got "hot"'),
    (body(temperature=True), "Parameter temperature is not valid: expected a number, got true"),
    (body(top_p=1.5), "Parameter top_p is not valid: expected a number between 0 and 1, got 1.5"),
    (
        body(presence_penalty=-2.5),
        "Parameter presence_penalty is not valid: expected a number between -2 and 2, got -2.5",
    ),
    (body(n=0), "Parameter n is not valid: expected an integer >= 1, got 0"),
    (body(n="1"), 'Parameter n is not valid: expected an integer, got "1"'),
    (body(max_completion_tokens=0), "Parameter max_completion_tokens is not valid: expected an integer >= 1, got 0"),
    (body(max_completion_tokens=10.5), "Parameter max_completion_tokens is not valid: expected an integer, got 10.5"),
    (body(stream="yes"), 'Parameter stream is not valid: expected a boolean, got "yes"'),
    (
        body(tools=[{"type": "function", "function": {"name": "get weather"}}]),
        "Parameter tools[0].function.name is not valid: expected a string matching ^[a-zA-Z0-9_-]{1,64}$, "
        "got 'get weather'",
    ),
    (
        body(tools=[{"type": "function", "function": {"name": "x" * 65}}]),
        "Parameter tools[0].function.name is not valid: expected a string matching ^[a-zA-Z0-9_-]{1,64}$, "
        f'got "{"x" * 56}...',
    ),
    (
        body(tools=[{"type": "function", "function": {"description": "d"}}]),
        "Parameter tools[0].function.name is required",
    ),
    (body(tools=[{"type": "function"}]), "Parameter tools[0].function is required"),
    (
        body(tools=[{"type": "retrieval"}]),
        "Parameter tools[0].type is not valid: expected one of 'function', 'custom', got 'retrieval'",
    ),
    (
        body(tools=[{"type": "custom", "custom": {"name": "c", "format": {"type": "grammar", "grammar": GRAMMAR}}}]),
        "Parameter tools[0].custom.format.grammar.syntax is not valid: expected one of 'lark', 'regex', got 'ebnf'",
    ),
    (body(tools={"type": "function"}), 'Parameter tools is not valid: expected an array, got {"type":"function"}'),
    (body(stop=["1", "2", "3", "4", "5"]), "Parameter stop is not valid: at most 4 stop sequences are allowed"),
    (body(stop=5), "Parameter stop is not valid: expected a string or an array of strings, got 5"),
    (body(stop=["a", 5]), "Parameter stop[1] is not valid: expected a string, got 5"),
    (
        body(metadata={f"k{i}": "v" for i in range(17)}),
        "Parameter metadata is not valid: at most 16 key-value pairs are allowed, got 17",
    ),
    (body(metadata={"k" * 65: "v"}), "Parameter metadata is not valid: keys must be at most 64 characters"),
    (body(metadata={"k": "v" * 513}), "Parameter metadata is not valid: values must be at most 512 characters"),
    (body(metadata={"k": 5}), "Parameter metadata.k is not valid: expected a string, got 5"),
    (body(top_logprobs=21), "Parameter top_logprobs is not valid: expected an integer between 0 and 20, got 21"),
    (body(top_logprobs=-1), "Parameter top_logprobs is not valid: expected an integer between 0 and 20, got -1"),
    (
        body(logit_bias={"50256": 101}),
        "Parameter logit_bias.50256 is not valid: expected a number between -100 and 100, got 101",
    ),
    (
        body(tool_choice="sometimes"),
        "Parameter tool_choice is not valid: expected one of 'none', 'auto', 'required', got 'sometimes'",
    ),
    (
        body(tool_choice={"type": "tool"}),
        "Parameter tool_choice.type is not valid: expected one of 'function', 'custom', 'allowed_tools', got 'tool'",
    ),
    (body(tool_choice={"type": "function", "function": {}}), "Parameter tool_choice.function.name is required"),
    (
        body(tool_choice={"type": "allowed_tools", "mode": "maybe", "tools": []}),
        "Parameter tool_choice.mode is not valid: expected one of 'auto', 'required', got 'maybe'",
    ),
    (
        body(tool_choice={"type": "allowed_tools", "allowed_tools": {"mode": "auto"}}),
        "Parameter tool_choice.allowed_tools.tools is required",
    ),
    (
        body(tool_choice=3),
        "Parameter tool_choice is not valid: expected 'none', 'auto', 'required' or an object, got 3",
    ),
    (
        body(response_format={"type": "xml"}),
        "Parameter response_format.type is not valid: expected one of 'text', 'json_object', 'json_schema', got 'xml'",
    ),
    (body(response_format={"type": "json_schema"}), "Parameter response_format.json_schema is required"),
    (
        body(response_format={"type": "json_schema", "json_schema": {"name": "a b"}}),
        "Parameter response_format.json_schema.name is not valid: expected a string matching "
        "^[a-zA-Z0-9_-]{1,64}$, got 'a b'",
    ),
    (
        body(reasoning_effort=5),  # an unknown string is a newer effort: accepted with a warning
        "Parameter reasoning_effort is not valid: expected a string, got 5",
    ),
    (
        body(reasoning={"max_tokens": -1}),
        "Parameter reasoning.max_tokens is not valid: expected an integer >= 0, got -1",
    ),
    (body(verbosity="loud"), "Parameter verbosity is not valid: expected one of 'low', 'medium', 'high', got 'loud'"),
    (body(usage={}), "Parameter usage.include is required"),
    (
        body(stream=True, stream_options={"include_usage": "yes"}),
        'Parameter stream_options.include_usage is not valid: expected a boolean, got "yes"',
    ),
    (
        body(provider={"routing": {"type": "priority", "primary_factor": "vibes"}}),
        "Parameter provider.routing.primary_factor is not valid: expected one of 'cost', 'speed', 'quality', "
        "'latency', 'price', 'throughput', got 'vibes'",
    ),
    (
        body(provider={"routing": "priority"}),
        'Parameter provider.routing is not valid: expected an object, got "priority"',
    ),
    (body(model_routing_config={"task_info": {}}), "Parameter model_routing_config.task_info.task_type is required"),
    (
        body(web_search_options={"search_context_size": "huge"}),
        "Parameter web_search_options.search_context_size is not valid: expected one of 'low', 'medium', 'high', "
        "got 'huge'",
    ),
    (
        body(web_search_options={"user_location": {"type": "exact"}}),
        "Parameter web_search_options.user_location.type is not valid: expected 'approximate', got 'exact'",
    ),
]


@pytest.mark.parametrize(("payload", "expected"), PATH_MESSAGES)
def test_path_messages(payload: dict[str, Any], expected: str) -> None:
    assert message_for(payload) == expected


def test_first_problem_in_document_order_is_named_and_others_counted() -> None:
    payload = {"top_p": 7, "model": "openai/gpt-5", "messages": [USER], "temperature": "x", "verbosity": "loud"}
    assert message_for(payload) == (
        "Parameter top_p is not valid: expected a number between 0 and 1, got 7 (and 2 more problems)"
    )
    reordered = {"verbosity": "loud", **payload}
    assert message_for(reordered).startswith("Parameter verbosity is not valid")


def test_problems_inside_one_message_follow_key_order() -> None:
    part = {"image_url": {"url": 1}, "type": "image_url"}
    message = {"content": [part], "role": "user", "name": 3}
    assert message_for(body(messages=[message])) == (
        "Parameter messages[0].content[0].image_url.url is not valid: expected a string, got 1 (and 1 more problem)"
    )


def test_explain_works_on_a_raw_validation_error() -> None:
    payload = body(messages=[USER, {"role": "assistant", "content": "x", "tool_calls": [{"type": "function"}]}])
    with pytest.raises(ValidationError) as caught:
        ChatCompletionRequest.model_validate(payload)
    # both keys are missing: missing keys sort after present ones, then in model field order
    assert explain(caught.value, payload) == "Parameter messages[1].tool_calls[0].id is required (and 1 more problem)"


def test_show_truncates_long_values() -> None:
    assert show("x" * 100) == '"' + "x" * 56 + "..."
    assert show({"a": [1, None]}) == '{"a":[1,null]}'
