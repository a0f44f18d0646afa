"""Every documented request field of Create Chat Completion, table-driven: a valid value and its
effect on the reply (as JSON and streamed, the stream folded back into one completion), and an
invalid value with the answer it gets; then each documented response field's presence and shape."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from tests.conftest import FROZEN, MakeServer
from tests.faces.chat.agent.helpers import serve
from tests.faces.chat.contract.helpers import HEX32, RawResponse, assert_envelope, post
from tests.support.clients import sdk
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from zenmux_emulator.core.headers import WARNINGS_HEADER
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.pytest_plugin.server import EmulatorServer

GPT5 = "openai/gpt-5"
PLAIN = "acme/plain"  # declared below as a non-reasoning model, whatever the built-in catalogue holds
COUNT = "count to five"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"zone": {"type": "string"}},
                "required": ["zone"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
]
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "population": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["city", "population", "tags"],
    "additionalProperties": False,
}
CITED = "Paris is the capital of France. It has 2.1 million inhabitants."

SCENARIO = f"""
models:
  {PLAIN}: {{reasoning: false}}
rules:
  - name: count
    match: {{last_user: "{COUNT}"}}
    reply: {{content: "one two three four five"}}
  - name: two-calls
    match: {{last_user: "two calls"}}
    reply:
      tool_calls:
        - {{name: get_weather, arguments: {{city: Paris}}}}
        - {{name: get_time, arguments: {{zone: CET}}}}
  - name: legacy
    match: {{last_user: "legacy call"}}
    reply:
      finish_reason: function_call
      tool_calls: [{{name: get_time, arguments: {{zone: UTC}}}}]
  - name: tagged
    match: {{metadata: {{suite: tagged}}}}
    reply: {{content: "tagged reply"}}
  - name: refuses
    match: {{last_user: "refuse"}}
    reply: {{refusal: "I can't help with that.", tool_calls: [{{name: get_time}}]}}
  - name: cited
    match: {{last_user: "cite"}}
    reply:
      content: "{CITED}"
      annotations:
        - url_citation: {{url: "https://example.org/paris", title: Paris, start_index: 0, end_index: 32}}
  - name: not-json
    match: {{last_user: "prose please"}}
    reply: {{content: "plain prose"}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with serve(tmp_path_factory.mktemp("parameters"), SCENARIO) as running:
        yield running


def request_body(text: str = "an unscripted question", **fields: Any) -> dict[str, Any]:
    return {"model": GPT5, "messages": [{"role": "user", "content": text}], **fields}


# --- a stream folded back into the completion it adds up to ------------------------------------


def _fold_calls(calls: dict[int, dict[str, Any]], fragment: dict[str, Any]) -> None:
    index = fragment["index"]
    if index not in calls:
        calls[index] = {k: json.loads(json.dumps(v)) for k, v in fragment.items() if k != "index"}
        return
    kind = calls[index]["type"]
    key = "arguments" if kind == "function" else "input"
    calls[index][kind][key] += fragment[kind][key]


def _fold_delta(message: dict[str, Any], calls: dict[int, dict[str, Any]], delta: dict[str, Any]) -> None:
    """Add one chunk's delta to the message (and its tool calls, by index)."""
    for key, value in delta.items():
        if value is None or key == "role":
            continue
        if key in ("content", "refusal", "reasoning", "reasoning_content"):
            message[key] = (message.get(key) or "") + value
        elif key in ("annotations", "reasoning_details"):
            message.setdefault(key, []).extend(value)
        elif key == "function_call":
            legacy = message.setdefault(key, {"name": "", "arguments": ""})
            for part, text in value.items():
                legacy[part] += text
        elif key == "tool_calls":
            for fragment in value:
                _fold_calls(calls, fragment)


def fold(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The completion a stream adds up to: texts concatenated, lists extended, calls by index."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
    calls: dict[int, dict[str, Any]] = {}
    finish, usage, logprobs = None, None, None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            _fold_delta(message, calls, choice["delta"])
            if choice.get("logprobs"):
                logprobs = logprobs or {"content": [], "refusal": None}
                logprobs["content"] += choice["logprobs"].get("content") or []
            finish = choice.get("finish_reason") or finish
    if message["content"] == "":
        message["content"] = None
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": logprobs}],
        "usage": usage,
    }


@dataclass
class Answer:
    """One reply as JSON or folded from its stream, with the HTTP response it came in."""

    body: dict[str, Any]
    raw: RawResponse
    streamed: bool

    @property
    def message(self) -> dict[str, Any]:
        return dict(self.body["choices"][0]["message"])

    @property
    def finish(self) -> str:
        return str(self.body["choices"][0]["finish_reason"])

    @property
    def usage(self) -> dict[str, Any]:
        return dict(self.body["usage"])

    @property
    def warnings(self) -> str:
        return self.raw.headers.get(WARNINGS_HEADER, "")


def ask(server: EmulatorServer, body: dict[str, Any], streamed: bool) -> Answer:
    """The reply as JSON or folded from its stream (a body that asks for a stream always streams)."""
    streamed = streamed or body.get("stream") is True
    if streamed:
        body = {**body, "stream": True}
        if "usage" not in body and "stream_options" not in body:
            body["stream_options"] = {"include_usage": True}
    raw = post(server, body)
    assert raw.status == 200, raw.body
    if not streamed:
        completion = raw.json()
        assert_chat_completion(completion)
        return Answer(completion, raw, False)
    chunks = raw.sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    return Answer(fold(chunks), raw, True)


# --- the effects ------------------------------------------------------------------------------


def reasoning_tokens(answer: Answer) -> int:
    return int(answer.usage["completion_tokens_details"]["reasoning_tokens"])


def same_as_without(server: EmulatorServer, name: str) -> Callable[[Answer], None]:
    """Sampling fields have nothing to sample in a scripted emulator: the reply is the one the
    request gets without them, and no warning is given."""

    def check(answer: Answer) -> None:
        plain = ask(server, request_body(COUNT), answer.streamed)
        assert answer.message["content"] == plain.message["content"] == "one two three four five"
        assert name not in answer.warnings

    return check


def cut_to_three(answer: Answer) -> None:
    assert answer.finish == "length"
    assert answer.usage["completion_tokens"] == 3


def stopped_before_four(answer: Answer) -> None:
    assert (answer.message["content"], answer.finish) == ("one two three", "stop")


def has_logprobs(top: int) -> Callable[[Answer], None]:
    def check(answer: Answer) -> None:
        entries = answer.body["choices"][0]["logprobs"]["content"]
        assert "".join(e["token"] for e in entries) == answer.message["content"]
        assert all(len(e["top_logprobs"]) == top for e in entries)

    return check


def calls_one(name: str) -> Callable[[Answer], None]:
    def check(answer: Answer) -> None:
        (call,) = answer.message["tool_calls"]
        assert call["function"]["name"] == name and call["id"].startswith("call_")
        json.loads(call["function"]["arguments"])
        assert answer.message["content"] is None
        assert answer.finish == "tool_calls"

    return check


def reasons_at(tokens: int) -> Callable[[Answer], None]:
    def check(answer: Answer) -> None:
        assert answer.message["reasoning"]
        assert reasoning_tokens(answer) == tokens

    return check


def no_reasoning(answer: Answer) -> None:
    assert answer.message.get("reasoning") is None and answer.message.get("reasoning_details") is None
    assert reasoning_tokens(answer) == 0


def hidden_reasoning(answer: Answer) -> None:
    assert answer.message.get("reasoning") is None and answer.message.get("reasoning_details") is None
    assert reasoning_tokens(answer) > 0


def cites_sources(answer: Answer) -> None:
    content = answer.message["content"]
    notes = answer.message["annotations"]
    assert notes
    for note in notes:
        assert note["type"] == "url_citation"
        cite = note["url_citation"]
        assert set(cite) == {"url", "title", "start_index", "end_index"}
        assert cite["url"].startswith("https://") and cite["title"]
        assert 0 <= cite["start_index"] < cite["end_index"] <= len(content)
        assert content[cite["start_index"] : cite["end_index"]].strip()


def tagged(answer: Answer) -> None:
    assert answer.message["content"] == "tagged reply"


def is_event_stream(answer: Answer) -> None:
    assert answer.streamed and answer.raw.content_type.startswith("text/event-stream")
    assert answer.raw.body.endswith(b"data: [DONE]\n\n")


def usage_present(answer: Answer) -> None:
    usage = answer.usage
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def routed_to_openai(answer: Answer) -> None:
    assert answer.raw.headers.get("X-Emulator-Routing", "").startswith(f"{GPT5}@openai=ok")


def served_by(model: str) -> Callable[[Answer], None]:
    def check(answer: Answer) -> None:
        if not answer.streamed:
            assert answer.body["model"] == model
        assert answer.raw.headers.get("X-Emulator-Routing", "").startswith(model + "@")

    return check


def fits_schema(answer: Answer) -> None:
    jsonschema.validate(json.loads(answer.message["content"]), SCHEMA)


def is_object(answer: Answer) -> None:
    assert isinstance(json.loads(answer.message["content"]), dict)


def longer_prompt(server: EmulatorServer) -> Callable[[Answer], None]:
    def check(answer: Answer) -> None:
        short = ask(server, request_body(COUNT), answer.streamed)
        assert answer.usage["prompt_tokens"] > short.usage["prompt_tokens"]
        assert answer.message["content"] == "one two three four five"

    return check


@dataclass
class Field:
    """One documented request field: a valid value and its effect, an invalid value and its answer."""

    name: str
    valid: dict[str, Any]
    effect: Callable[..., Any]
    invalid: dict[str, Any] | None
    answer: str
    text: str = COUNT
    needs_server: bool = False


def _fields() -> list[Field]:
    return [
        Field("model", {"model": GPT5}, served_by(GPT5), {"model": "gpt-5"}, "Model gpt-5 is not valid"),
        Field(
            "messages",
            {"messages": [{"role": "system", "content": "Be brief and exact."}, {"role": "user", "content": COUNT}]},
            longer_prompt,
            {"messages": []},
            "Parameter messages can not be empty",
            needs_server=True,
        ),
        Field(
            "max_completion_tokens",
            {"model": PLAIN, "max_completion_tokens": 3},
            cut_to_three,
            {"max_completion_tokens": 0},
            "Parameter max_completion_tokens is not valid",
        ),
        Field(
            "temperature",
            {"temperature": 0.2},
            same_as_without,
            {"temperature": -1},
            "Parameter temperature is not valid",
            needs_server=True,
        ),
        Field(
            "top_p", {"top_p": 0.5}, same_as_without, {"top_p": 2}, "Parameter top_p is not valid", needs_server=True
        ),
        Field(
            "n", {"n": 1}, same_as_without, {"n": 2}, "Parameter n grater than 1 is not supported", needs_server=True
        ),
        Field(
            "frequency_penalty",
            {"frequency_penalty": 1.5},
            same_as_without,
            {"frequency_penalty": 3},
            "Parameter frequency_penalty is not valid",
            needs_server=True,
        ),
        Field(
            "presence_penalty",
            {"presence_penalty": -1},
            same_as_without,
            {"presence_penalty": -3},
            "Parameter presence_penalty is not valid",
            needs_server=True,
        ),
        Field(
            "stop",
            {"stop": [" four"]},
            stopped_before_four,
            {"stop": ["a", "b", "c", "d", "e"]},
            "Parameter stop is not valid",
        ),
        Field(
            "logit_bias",
            {"logit_bias": {"1734": -100}},
            same_as_without,
            {"logit_bias": {"the": 5}},
            "Parameter logit_bias is not valid: key 'the' is not a token id",
            needs_server=True,
        ),
        Field("logprobs", {"logprobs": True}, has_logprobs(0), {"logprobs": "yes"}, "Parameter logprobs is not valid"),
        Field(
            "top_logprobs",
            {"logprobs": True, "top_logprobs": 2},
            has_logprobs(2),
            {"top_logprobs": 2},
            "Parameter top_logprobs is not valid: 'logprobs' must be true",
        ),
        Field(
            "tools",
            {"tools": TOOLS, "tool_choice": "required"},
            calls_one("get_time"),
            {"tools": [{"type": "function"}]},
            "Parameter tools[0].function is required",
            text="an unscripted question",
        ),
        Field(
            "tool_choice",
            {"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "get_time"}}},
            calls_one("get_time"),
            {"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}},
            "Parameter tool_choice is not valid: function 'nope' is not one of the tools",
            text="two calls",
        ),
        Field(
            "parallel_tool_calls",
            {"tools": TOOLS, "parallel_tool_calls": False},
            calls_one("get_weather"),
            {"parallel_tool_calls": "no"},
            "Parameter parallel_tool_calls is not valid",
            text="two calls",
        ),
        Field(
            "reasoning_effort",
            {"reasoning_effort": "low"},
            reasons_at(2048),
            {"reasoning_effort": 5},
            "Parameter reasoning_effort is not valid",
        ),
        Field(
            "verbosity",
            {"verbosity": "low"},
            same_as_without,
            {"verbosity": "terse"},
            "Parameter verbosity is not valid",
            needs_server=True,
        ),
        Field(
            "web_search_options",
            {"web_search_options": {"search_context_size": "low"}},
            cites_sources,
            {"web_search_options": {"search_context_size": "huge"}},
            "Parameter web_search_options.search_context_size is not valid",
            text="an unscripted question",
        ),
        Field(
            "metadata",
            {"metadata": {"suite": "tagged"}},
            tagged,
            {"metadata": {f"k{i}": "v" for i in range(17)}},
            "Parameter metadata is not valid",
            text="an unscripted question",
        ),
        Field("stream", {"stream": True}, is_event_stream, {"stream": "yes"}, "Parameter stream is not valid"),
        Field(
            "stream_options",
            {"stream": True, "stream_options": {"include_usage": True}},
            usage_present,
            {"stream_options": {"include_usage": True}},
            "Parameter stream_options is not supported while stream is false",
        ),
        Field(
            "provider",
            {"provider": {"routing": {"type": "priority", "providers": ["openai"]}}},
            routed_to_openai,
            {"provider": {"routing": {"type": "fastest"}}},
            "Parameter type of provider.routing is not valid",
        ),
        Field(
            "model_routing_config",
            {"model": "zenmux/auto", "model_routing_config": {"available_models": [PLAIN]}},
            served_by(PLAIN),
            {"model": "zenmux/auto", "model_routing_config": {"available_models": ["gpt-5"]}},
            "Parameter model_routing_config.available_models[0] is not valid",
        ),
        Field(
            "reasoning",
            {"reasoning": {"enabled": False}},
            no_reasoning,
            {"reasoning": {"effort": 5}},
            "Parameter reasoning.effort is not valid",
            text="an unscripted question",
        ),
        Field(
            "reasoning.exclude",
            {"reasoning": {"exclude": True}},
            hidden_reasoning,
            {"reasoning": {"exclude": "yes"}},
            "Parameter reasoning.exclude is not valid",
            text="an unscripted question",
        ),
        Field(
            "reasoning.max_tokens",
            {"reasoning": {"max_tokens": 300}},
            reasons_at(300),
            {"reasoning": {"max_tokens": "many"}},
            "Parameter reasoning.max_tokens is not valid",
            text="an unscripted question",
        ),
        Field(
            "include_reasoning",
            {"include_reasoning": False},
            hidden_reasoning,
            {"include_reasoning": "no"},
            "Parameter include_reasoning is not valid",
            text="an unscripted question",
        ),
        Field(
            "usage",
            {"usage": {"include": True}},
            usage_present,
            {"usage": {"include": "always"}},
            "Parameter usage.include is not valid",
        ),
        Field(
            "response_format",
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "city", "strict": True, "schema": SCHEMA},
                }
            },
            fits_schema,
            {"response_format": {"type": "xml"}},
            "Parameter response_format.type is not valid",
            text="an unscripted question",
        ),
        Field(
            "response_format.json_object",
            {"response_format": {"type": "json_object"}},
            is_object,
            {"response_format": {"type": "json_schema"}},
            "Parameter response_format.json_schema is required",
            text="an unscripted question",
        ),
    ]


FIELDS = _fields()
IDS = [f.name for f in FIELDS]


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("case", FIELDS, ids=IDS)
def test_a_valid_value_takes_effect(server: EmulatorServer, case: Field, streamed: bool) -> None:
    answer = ask(server, request_body(case.text, **case.valid), streamed)
    if case.effect is same_as_without:
        same_as_without(server, case.name)(answer)
    elif case.needs_server:
        case.effect(server)(answer)
    else:
        case.effect(answer)


@pytest.mark.parametrize(
    "case", [f for f in FIELDS if f.invalid is not None], ids=[f.name for f in FIELDS if f.invalid]
)
def test_an_invalid_value_gets_its_answer(server: EmulatorServer, case: Field) -> None:
    assert case.invalid is not None
    response = post(server, request_body(case.text, **case.invalid))
    error = assert_envelope(response, 400, "invalid_params")
    assert error["message"].startswith(case.answer), error["message"]


# --- behaviours the table's single values leave out -------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_a_non_reasoning_model_ignores_a_reasoning_ask_with_a_warning(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body(model=PLAIN, reasoning={"enabled": True}), streamed)
    no_reasoning(answer)
    assert f"{PLAIN} is not a reasoning model" in answer.warnings


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_a_reasoning_model_reasons_unasked_at_its_default_effort(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body(), streamed)
    reasons_at(5120)(answer)
    assert answer.message["reasoning_details"]
    if streamed:
        assert answer.message["reasoning_content"] == answer.message["reasoning"]


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_the_limit_cuts_a_forced_call_s_arguments(server: EmulatorServer, streamed: bool) -> None:
    body = request_body(
        model=PLAIN,
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_time"}},
        max_completion_tokens=4,
    )
    answer = ask(server, body, streamed)
    (call,) = answer.message["tool_calls"]
    full = ask(server, {**body, "max_completion_tokens": None}, streamed).message["tool_calls"][0]
    arguments = call["function"]["arguments"]
    assert full["function"]["arguments"].startswith(arguments) and arguments != full["function"]["arguments"]
    assert answer.finish == "length" and answer.usage["completion_tokens"] == 4


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_the_limit_cuts_a_refusal(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body("refuse", model=PLAIN, max_completion_tokens=2), streamed)
    assert answer.message["refusal"] == "I can"
    assert answer.finish == "length" and answer.usage["completion_tokens"] == 2


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_a_refusal_sends_no_tool_calls(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body("refuse", tools=TOOLS), streamed)
    assert answer.message["refusal"] == "I can't help with that."
    assert not answer.message.get("tool_calls") and answer.finish == "stop"
    assert "refuses: its 1 tool call(s) were not sent" in answer.warnings


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_forcing_one_function_drops_the_other_scripted_calls(server: EmulatorServer, streamed: bool) -> None:
    choice = {"type": "function", "function": {"name": "get_time"}}
    answer = ask(server, request_body("two calls", tools=TOOLS, tool_choice=choice), streamed)
    (call,) = answer.message["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"zone": "CET"}
    assert "tool_choice forces 'get_time'" in answer.warnings


def test_required_without_tools_is_refused(server: EmulatorServer) -> None:
    error = assert_envelope(post(server, request_body(tool_choice="required")), 400, "invalid_params")
    assert error["message"] == (
        "Parameter tool_choice is not valid: 'tool_choice' is only allowed when 'tools' are specified"
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_a_function_call_finish_comes_with_function_call(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body("legacy call", tools=TOOLS), streamed)
    assert answer.finish == "function_call"
    assert answer.message["function_call"] == {"name": "get_time", "arguments": '{"zone":"UTC"}'}
    assert not answer.message.get("tool_calls")


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_scripted_annotations_come_back(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body("cite"), streamed)
    assert answer.message["annotations"] == [
        {
            "type": "url_citation",
            "url_citation": {"end_index": 32, "start_index": 0, "title": "Paris", "url": "https://example.org/paris"},
        }
    ]
    assert CITED[0:32] == "Paris is the capital of France. "


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_scripted_content_that_misses_the_format_is_warned_of(server: EmulatorServer, streamed: bool) -> None:
    answer = ask(server, request_body("prose please", response_format={"type": "json_object"}), streamed)
    assert answer.message["content"] == "plain prose"
    assert (
        "the content of rule 'not-json' does not fit the requested response format: it is not JSON" in answer.warnings
    )


class City(BaseModel):
    city: str
    population: int
    tags: list[str]


def test_sdk_parse_gets_valid_unscripted_json_streamed_and_not(server: EmulatorServer, session: str) -> None:
    messages: list[Any] = [{"role": "user", "content": "a city"}]
    with sdk(server, session) as client:
        parsed = (
            client.chat.completions.parse(model=GPT5, messages=messages, response_format=City).choices[0].message.parsed
        )
        with client.chat.completions.stream(model=GPT5, messages=messages, response_format=City) as stream:
            final = stream.get_final_completion().choices[0].message.parsed
    assert isinstance(parsed, City) and final == parsed


def test_an_assistant_tool_call_without_id_is_named_at_its_place(server: EmulatorServer) -> None:
    body = {
        "model": GPT5,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "x", "content": "r"},
        ],
    }
    error = assert_envelope(post(server, body), 400, "invalid_params")
    assert error["message"] == "Parameter messages[1].tool_calls[0].id is required"


# --- response fields --------------------------------------------------------------------------

RESPONSE_FIELDS: list[tuple[str, Callable[[Any], bool]]] = [
    ("id", lambda v: isinstance(v, str) and re.match(HEX32, v) is not None),
    ("object", lambda v: v == "chat.completion"),
    ("created", lambda v: v == FROZEN),
    ("model", lambda v: v == GPT5),
    ("choices", lambda v: isinstance(v, list) and len(v) == 1),
    ("choices.0.index", lambda v: v == 0),
    ("choices.0.finish_reason", lambda v: v in ("stop", "length", "content_filter", "tool_calls", "function_call")),
    ("choices.0.logprobs", lambda v: v is None),
    ("choices.0.message.role", lambda v: v == "assistant"),
    ("choices.0.message.content", lambda v: isinstance(v, str) and v),
    ("choices.0.message.refusal", lambda v: v is None),
    ("choices.0.message.annotations", lambda v: v == []),
    ("choices.0.message.reasoning", lambda v: isinstance(v, str) and v),
    (
        "choices.0.message.reasoning_details",
        lambda v: [d["type"] for d in v] == ["reasoning.summary", "reasoning.encrypted"],
    ),
    ("usage.prompt_tokens", lambda v: isinstance(v, int) and v > 0),
    ("usage.completion_tokens", lambda v: isinstance(v, int) and v > 0),
    ("usage.total_tokens", lambda v: isinstance(v, int) and v > 0),
    (
        "usage.completion_tokens_details",
        lambda v: (
            set(v) == {"accepted_prediction_tokens", "audio_tokens", "reasoning_tokens", "rejected_prediction_tokens"}
        ),
    ),
    ("usage.prompt_tokens_details", lambda v: set(v) == {"audio_tokens", "cached_tokens"}),
]


def _at(body: Any, path: str) -> Any:
    for part in path.split("."):
        body = body[int(part)] if isinstance(body, list) else body[part]
    return body


@pytest.fixture(scope="module")
def unscripted(server: EmulatorServer) -> dict[str, Any]:
    response = post(server, request_body())
    assert response.status == 200
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(("path", "shape"), RESPONSE_FIELDS, ids=[p for p, _ in RESPONSE_FIELDS])
def test_each_response_field_is_there_in_its_shape(
    unscripted: dict[str, Any], path: str, shape: Callable[[Any], bool]
) -> None:
    assert shape(_at(unscripted, path)), (path, _at(unscripted, path))


def test_each_chunk_field_is_there_in_its_shape(server: EmulatorServer) -> None:
    chunks = post(server, request_body(stream=True, stream_options={"include_usage": True})).sse().chunks
    ids = {c["id"] for c in chunks}
    assert len(ids) == 1 and re.match(HEX32, ids.pop())
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert {c["created"] for c in chunks} == {FROZEN} and {c["model"] for c in chunks} == {GPT5}
    *choices, last = chunks
    assert choices[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all(c["choices"][0]["index"] == 0 and "delta" in c["choices"][0] for c in choices)
    assert [c["choices"][0]["finish_reason"] for c in choices if c["choices"][0]["finish_reason"]] == ["stop"]
    reasoning = [c["choices"][0]["delta"] for c in choices if c["choices"][0]["delta"].get("reasoning")]
    assert reasoning and all(d["reasoning_content"] == d["reasoning"] for d in reasoning)
    assert last["choices"] == [] and set(last["usage"]) >= {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_a_scenario_citation_outside_the_content_fails_at_load(make_server: MakeServer) -> None:
    with pytest.raises(ScenarioError) as caught:
        make_server("""
            rules:
              - name: c
                reply:
                  content: short
                  annotations:
                    - url_citation: {url: "https://example.org", start_index: 0, end_index: 40}
        """)
    [problem] = caught.value.problems
    assert problem.line == 7 and problem.path == "rules[0].reply.annotations[0].url_citation"
    assert "end_index 40" in problem.reason and "(the content's length)" in problem.reason
