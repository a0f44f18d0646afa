"""Matching semantics of the scenario language, each over a scenario written on the spot, through the SDK."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from typing import Any

import openai
import pytest

from tests.conftest import MakeServer
from tests.scenarios.helpers import ask, ask_stream
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.pytest_plugin.server import EmulatorServer

OpenClient = Callable[..., openai.OpenAI]


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}


def tool_exchange(name: str, result: str, call_id: str = "call_1") -> list[dict[str, Any]]:
    """A user question, the assistant calling `name`, and the tool's result last."""
    return [
        {"role": "user", "content": "use the tool"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


@pytest.fixture
def client_for(session: str, open_client: OpenClient) -> Callable[[EmulatorServer], openai.OpenAI]:
    return lambda server: open_client(server, session)


# --- model ---------------------------------------------------------------------------------------------

MODELS = """
settings: {catalogue: open}  # model ids outside ZenMux's catalogue too: this is about globs
rules:
  - name: one-glob
    match: {model: "openai/gpt-4*"}
    reply: {content: one}
  - name: glob-list
    match: {model: ["anthropic/*", "google/gemini-?.5-pro"]}
    reply: {content: list}
  - name: exact
    match: {model: acme/tiny}
    reply: {content: exact}
"""


def test_model_globs_single_and_list(make_server: MakeServer, client_for):
    client = client_for(make_server(MODELS))
    cases = {
        "openai/gpt-4o": "one-glob",
        "openai/gpt-4.1-mini": "one-glob",
        "openai/gpt-5": None,
        "anthropic/claude-sonnet-4.5": "glob-list",
        "google/gemini-2.5-pro": "glob-list",
        "google/gemini-2.5-flash-lite": None,
        "acme/tiny": "exact",
        "acme/tiny:some-provider": "exact",
        "acme/tiny-2": None,
    }
    assert {model: ask(client, "hi", model=model).rule for model in cases} == cases


# --- text conditions -----------------------------------------------------------------------------------

TEXT = """
rules:
  - name: equals
    match: {last_user: {equals: "exactly this"}}
    reply: {content: equals}
  - name: regex
    match: {last_user: {regex: "^order #\\\\d+$"}}
    reply: {content: regex}
  - name: starts
    match: {last_user: {starts_with: "Please"}}
    reply: {content: starts}
  - name: ends
    match: {last_user: {ends_with: "thanks!"}}
    reply: {content: ends}
  - name: not-contains
    match: {last_user: {contains: "banana", not_contains: "split"}}
    reply: {content: not-contains}
  - name: ignore-case
    match: {last_user: {equals: "SHOUT", ignore_case: true}}
    reply: {content: ignore-case}
  - name: all-of
    match: {last_user: {contains: ["red", "blue"]}}
    reply: {content: all-of}
  - name: shorthand
    match: {last_user: "kiwi"}
    reply: {content: shorthand}
  - name: combined
    match: {last_user: {starts_with: "[", ends_with: "]", regex: "\\\\d"}}
    reply: {content: combined}
"""


def test_last_user_text_conditions(make_server: MakeServer, client_for):
    client = client_for(make_server(TEXT))
    cases = {
        "exactly this": "equals",
        "exactly this ": None,
        "Exactly this": None,
        "order #123": "regex",
        "my order #123": None,
        "Please help": "starts",
        "please help": None,
        "ok, thanks!": "ends",
        "thanks! ok": None,
        "a banana": "not-contains",
        "a banana split": None,
        "shout": "ignore-case",
        "ShOuT": "ignore-case",
        "shouting": None,
        "red and blue": "all-of",
        "blue then red": "all-of",
        "only red": None,
        "a kiwi": "shorthand",
        "[item 7]": "combined",
        "[item]": None,
        "item 7]": None,
    }
    assert {text: ask(client, text).rule for text in cases} == cases


def test_last_user_is_the_latest_user_message(make_server: MakeServer, client_for):
    client = client_for(make_server(TEXT))
    earlier = [
        {"role": "user", "content": "a kiwi"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "nothing"},
    ]
    assert ask(client, messages=earlier).rule is None
    later = [
        {"role": "user", "content": "nothing"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "a kiwi"},
    ]
    assert ask(client, messages=later).rule == "shorthand"


def test_last_user_reads_text_parts(make_server: MakeServer, client_for):
    client = client_for(make_server(TEXT))
    parts = [{"role": "user", "content": [{"type": "text", "text": "first part"}, {"type": "text", "text": "a kiwi"}]}]
    assert ask(client, messages=parts).rule == "shorthand"


def test_ignore_case_regex_matches_text_that_case_folding_changes(make_server: MakeServer, client_for):
    # casefold() turns "ß" into "ss"; a regex with ignore_case must still match its own literal text.
    server = make_server("""
        rules:
          - name: street
            match: {last_user: {regex: "Straße \\\\d+", ignore_case: true}}
            reply: {content: street}
    """)
    client = client_for(server)
    assert ask(client, "Straße 5").rule == "street"
    assert ask(client, "STRAßE 12").rule == "street"
    assert ask(client, "Strasse").rule is None


def test_any_message_looks_at_every_message(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: needle
            match: {any_message: {contains: "needle"}}
            reply: {content: found}
    """)
    )
    in_assistant = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "a needle here"},
        {"role": "user", "content": "and?"},
    ]
    in_system = [{"role": "system", "content": "needle"}, {"role": "user", "content": "hi"}]
    nowhere = [{"role": "system", "content": "hay"}, {"role": "user", "content": "hay"}]
    assert ask(client, messages=in_assistant).rule == "needle"
    assert ask(client, messages=in_system).rule == "needle"
    assert ask(client, messages=nowhere).rule is None


def test_system_joins_system_and_developer_prompts(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: both
            match: {system: {contains: ["alpha", "beta"]}}
            reply: {content: both}
          - name: one
            match: {system: {regex: "alpha|beta"}}
            reply: {content: one}
    """)
    )
    both = [
        {"role": "system", "content": "alpha"},
        {"role": "developer", "content": "beta"},
        {"role": "user", "content": "hi"},
    ]
    developer_only = [{"role": "developer", "content": "beta"}, {"role": "user", "content": "hi"}]
    in_user = [{"role": "user", "content": "alpha beta"}]
    assert ask(client, messages=both).rule == "both"
    assert ask(client, messages=developer_only).rule == "one"
    assert ask(client, messages=in_user).rule is None


# --- tools ---------------------------------------------------------------------------------------------

TOOLS = """
rules:
  - name: weather-and-time
    match: {tools: [get_weather, get_time]}
    reply: {content: both}
  - name: weather
    match: {tools: [get_weather]}
    reply: {content: weather}
"""


def test_tools_must_all_be_offered(make_server: MakeServer, client_for):
    client = client_for(make_server(TOOLS))
    assert ask(client, "hi", tools=[tool("get_time"), tool("search"), tool("get_weather")]).rule == "weather-and-time"
    assert ask(client, "hi", tools=[tool("get_weather")]).rule == "weather"
    assert ask(client, "hi", tools=[tool("get_time")]).rule is None
    assert ask(client, "hi").rule is None


TOOL_CHOICE = """
rules:
  - name: choice-none
    match: {tool_choice: none}
    reply: {content: none}
  - name: choice-required
    match: {tool_choice: required}
    reply: {content: required}
  - name: choice-named
    match: {tool_choice: get_weather}
    reply: {content: named}
  - name: choice-auto
    match: {tool_choice: auto}
    reply: {content: auto}
"""


def test_tool_choice_explicit_values(make_server: MakeServer, client_for):
    client = client_for(make_server(TOOL_CHOICE))
    tools = [tool("get_weather"), tool("get_time")]
    named = {"type": "function", "function": {"name": "get_weather"}}
    other = {"type": "function", "function": {"name": "get_time"}}
    assert ask(client, "hi", tools=tools, tool_choice="none").rule == "choice-none"
    assert ask(client, "hi", tools=tools, tool_choice="required").rule == "choice-required"
    assert ask(client, "hi", tools=tools, tool_choice=named).rule == "choice-named"
    assert ask(client, "hi", tools=tools, tool_choice="auto").rule == "choice-auto"
    assert ask(client, "hi", tools=tools, tool_choice=other).rule is None


def test_an_absent_tool_choice_defaults_like_openai(make_server: MakeServer, client_for):
    # OpenAI's documented defaults: `auto` when tools are offered, `none` when there are none.
    client = client_for(make_server(TOOL_CHOICE))
    assert ask(client, "hi", tools=[tool("get_weather")]).rule == "choice-auto"
    assert ask(client, "hi").rule == "choice-none"


TOOL_RESULT = """
rules:
  - name: sunny-weather
    match: {tool_result: {name: get_weather, content: {contains: "sunny"}}}
    reply: {content: "The tool said: {{ request.tool_result.content }}"}
  - name: any-time
    match: {tool_result: {name: get_time}}
    reply: {content: time}
  - name: any-result
    match: {tool_result: true}
    reply: {content: any}
  - name: no-result
    match: {tool_result: false}
    reply: {content: none}
"""


def test_tool_result_true_false_name_and_content(make_server: MakeServer, client_for):
    client = client_for(make_server(TOOL_RESULT))
    tools = [tool("get_weather"), tool("get_time")]
    sunny = ask(client, messages=tool_exchange("get_weather", "sunny, 21C"), tools=tools)
    assert (sunny.rule, sunny.content) == ("sunny-weather", "The tool said: sunny, 21C")
    assert ask(client, messages=tool_exchange("get_weather", "rain"), tools=tools).rule == "any-result"
    assert ask(client, messages=tool_exchange("get_time", "12:00"), tools=tools).rule == "any-time"
    assert ask(client, "no tools here").rule == "no-result"
    after = [
        *tool_exchange("get_weather", "sunny"),
        {"role": "assistant", "content": "It is sunny."},
        {"role": "user", "content": "thanks"},
    ]
    assert ask(client, messages=after, tools=tools).rule == "no-result"


def test_tool_result_name_follows_the_matching_call_id(make_server: MakeServer, client_for):
    client = client_for(make_server(TOOL_RESULT))
    messages = [
        {"role": "user", "content": "both please"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_w", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
                {"id": "call_t", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_w", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_t", "content": "12:00"},
    ]
    assert ask(client, messages=messages, tools=[tool("get_weather"), tool("get_time")]).rule == "any-time"


# --- turn, headers, metadata, stream -------------------------------------------------------------------


def conversation(turns: int, last: str = "next") -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    for i in range(turns):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    return [*messages, {"role": "user", "content": last}]


def test_turn_exact_and_ranges(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: turn-0
            match: {turn: 0}
            reply: {content: "turn {{ request.turn }}"}
          - name: turn-2
            match: {turn: 2}
            reply: {content: "turn {{ request.turn }}"}
          - name: turn-3-to-4
            match: {turn: {min: 3, max: 4}}
            reply: {content: "turn {{ request.turn }}"}
          - name: turn-6-on
            match: {turn: {min: 6}}
            reply: {content: "turn {{ request.turn }}"}
          - name: turn-up-to-1
            match: {turn: {max: 1}}
            reply: {content: "turn {{ request.turn }}"}
    """)
    )
    expected = {
        0: "turn-0",
        1: "turn-up-to-1",
        2: "turn-2",
        3: "turn-3-to-4",
        4: "turn-3-to-4",
        5: None,
        6: "turn-6-on",
        9: "turn-6-on",
    }
    answers = {turns: ask(client, messages=conversation(turns)) for turns in expected}
    assert {turns: a.rule for turns, a in answers.items()} == expected
    assert all(a.content == f"turn {turns}" for turns, a in answers.items() if a.rule)


def test_headers_match_names_case_insensitively(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: case-id
            match: {headers: {X-Case-Id: "abc"}}
            reply: {content: case}
          - name: flavour
            match: {headers: {x-flavour: {starts_with: "choc"}, X-Other: "1"}}
            reply: {content: flavour}
    """)
    )
    assert ask(client, "hi", extra_headers={"x-case-id": "abc"}).rule == "case-id"
    assert ask(client, "hi", extra_headers={"X-CASE-ID": "abc"}).rule == "case-id"
    assert ask(client, "hi", extra_headers={"X-Case-Id": "ABC"}).rule is None
    assert ask(client, "hi", extra_headers={"X-Flavour": "chocolate", "x-other": "1"}).rule == "flavour"
    assert ask(client, "hi", extra_headers={"X-Flavour": "chocolate"}).rule is None
    assert ask(client, "hi").rule is None


def test_metadata_values(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: billing
            match: {metadata: {suite: billing}}
            reply: {content: billing}
          - name: payments-team
            match: {metadata: {team: {regex: "^pay"}}}
            reply: {content: pay}
    """)
    )
    assert ask(client, "hi", metadata={"suite": "billing", "extra": "x"}).rule == "billing"
    assert ask(client, "hi", metadata={"suite": "Billing"}).rule is None
    assert ask(client, "hi", metadata={"team": "payments"}).rule == "payments-team"
    assert ask(client, "hi", metadata={"team": "repay"}).rule is None
    assert ask(client, "hi").rule is None


def test_stream_condition(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: streamed
            match: {stream: true}
            reply: {content: streamed}
          - name: not-streamed
            match: {stream: false}
            reply: {content: plain}
    """)
    )
    rule, content, _ = ask_stream(client, "hi")
    assert (rule, content) == ("streamed", "streamed")
    answer = ask(client, "hi")
    assert (answer.rule, answer.content) == ("not-streamed", "plain")
    assert ask(client, "hi", stream=False).rule == "not-streamed"


def test_all_conditions_of_a_rule_must_hold(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: strict-combo
            match: {model: "openai/*", last_user: "deploy", metadata: {env: prod}, turn: 0, stream: false}
            reply: {content: combo}
    """)
    )
    assert ask(client, "deploy now", metadata={"env": "prod"}).rule == "strict-combo"
    assert ask(client, "deploy now", metadata={"env": "dev"}).rule is None
    assert ask(client, "deploy now", metadata={"env": "prod"}, model="google/gemini-2.5-pro").rule is None
    assert ask(client, messages=conversation(1, "deploy now"), metadata={"env": "prod"}).rule is None
    assert ask_stream(client, "deploy now", metadata={"env": "prod"})[0] is None


def test_an_empty_match_answers_everything(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: anything
            reply: {content: always}
    """)
    )
    assert ask(client, "whatever", model="google/gemini-2.5-pro").rule == "anything"
    assert ask_stream(client, "else")[0] == "anything"


# --- order and priority --------------------------------------------------------------------------------


def test_first_match_in_file_order_wins(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: first
            match: {last_user: "x"}
            reply: {content: first}
          - name: second
            match: {last_user: {equals: "x"}}
            reply: {content: second}
          - name: third
            reply: {content: third}
    """)
    )
    assert ask(client, "x").rule == "first"
    assert ask(client, "y").rule == "third"


def test_priority_overrides_file_order(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: demoted
            priority: -1
            reply: {content: demoted}
          - name: plain
            match: {last_user: "x"}
            reply: {content: plain}
          - name: promoted
            priority: 5
            match: {last_user: {equals: "x y"}}
            reply: {content: promoted}
          - name: by-model
            priority: 2
            match: {model: openai/gpt-5.4-mini}
            reply: {content: by-model}
    """)
    )
    assert ask(client, "x y").rule == "promoted"  # priority 5 over the earlier, lower rules
    assert ask(client, "x").rule == "by-model"  # priority 2 over plain (0) although plain comes first
    assert ask(client, "x", model="openai/gpt-5").rule == "plain"
    assert ask(client, "z", model="openai/gpt-5").rule == "demoted"  # a negative priority still answers last


def test_rules_across_two_files_keep_file_order(make_server: MakeServer, client_for):
    server = make_server(
        """
        rules:
          - name: file-a-catch-all
            match: {model: "openai/*"}
            reply: {content: a}
        """,
        """
        rules:
          - name: file-b-exact
            match: {last_user: {equals: "x"}}
            reply: {content: b}
          - name: file-b-promoted
            priority: 1
            match: {last_user: {equals: "urgent"}}
            reply: {content: b-urgent}
        """,
    )
    client = client_for(server)
    assert [rule.name for rule in server.state.registry.current.scenarios.rules] == [
        "file-b-promoted",
        "file-a-catch-all",
        "file-b-exact",
    ]
    assert ask(client, "x").rule == "file-a-catch-all"
    assert ask(client, "x", model="google/gemini-2.5-pro").rule == "file-b-exact"
    assert ask(client, "urgent").rule == "file-b-promoted"


# --- reply sequences -----------------------------------------------------------------------------------

SEQUENCES = """
rules:
  - name: repeat
    match: {last_user: "repeat"}
    replies: [{content: r1}, {content: r2}]
  - name: cycle
    match: {last_user: "cycle"}
    replies: [{content: c1}, {content: c2}, {content: c3}]
    then: cycle
  - name: error
    match: {last_user: "error"}
    replies: [{content: e1}]
    then: error
  - name: fall
    match: {last_user: "fall"}
    replies: [{content: f1}, {content: f2}]
    then: fall_through
  - name: after-fall
    match: {last_user: "fall"}
    reply: {content: next rule}
"""


def test_then_repeat_last_is_the_default(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    assert [ask(client, "repeat").content for _ in range(4)] == ["r1", "r2", "r2", "r2"]


def test_then_cycle_starts_over(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    assert [ask(client, "cycle").content for _ in range(7)] == ["c1", "c2", "c3", "c1", "c2", "c3", "c1"]


def test_then_error_answers_400_sequence_exhausted(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    assert ask(client, "error").content == "e1"
    for _ in range(2):
        with pytest.raises(openai.BadRequestError) as caught:
            ask(client, "error")
        error = caught.value.body
        assert isinstance(error, dict) and error["type"] == "emulator_sequence_exhausted"
        assert "'error'" in error["message"]


def test_then_fall_through_lets_the_next_rule_answer(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    answers = [ask(client, "fall") for _ in range(4)]
    assert [(a.rule, a.content) for a in answers] == [
        ("fall", "f1"),
        ("fall", "f2"),
        ("after-fall", "next rule"),
        ("after-fall", "next rule"),
    ]


def test_sequences_count_per_rule(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    assert [ask(client, text).content for text in ("cycle", "repeat", "cycle", "repeat", "cycle")] == [
        "c1",
        "r1",
        "c2",
        "r2",
        "c3",
    ]


def test_sequence_counters_are_per_session(make_server: MakeServer, session: str, open_client: OpenClient):
    server = make_server(SEQUENCES)
    one, two = open_client(server, session + "-1"), open_client(server, session + "-2")
    assert ask(one, "cycle").content == "c1"
    assert ask(two, "cycle").content == "c1"
    assert ask(one, "cycle").content == "c2"
    assert ask(two, "cycle").content == "c2"
    assert ask(one, "cycle").content == "c3"


def test_sequence_counters_follow_the_api_key_without_a_session_header(make_server: MakeServer):
    server = make_server(SEQUENCES)
    with (
        openai.OpenAI(base_url=server.base_url, api_key="key-one", max_retries=0) as one,
        openai.OpenAI(base_url=server.base_url, api_key="key-two", max_retries=0) as two,
    ):
        assert [ask(one, "cycle").content, ask(one, "cycle").content] == ["c1", "c2"]
        assert ask(two, "cycle").content == "c1"


def test_streamed_and_plain_requests_share_the_sequence(make_server: MakeServer, client_for):
    client = client_for(make_server(SEQUENCES))
    assert ask(client, "cycle").content == "c1"
    assert ask_stream(client, "cycle")[1] == "c2"
    assert ask(client, "cycle").content == "c3"


# --- templates -----------------------------------------------------------------------------------------

TEMPLATES = """
rules:
  - name: echo
    match: {last_user: {starts_with: "echo"}}
    reply: {content: "{{ request.model }}|{{ request.turn }}|{{ request.last_user }}|{{ request.system }}"}
  - name: fake
    match: {last_user: {starts_with: "fake"}}
    reply: {content: "{{ fake.name() }}|{{ fake.uuid4() }}|{{ fake.random_int(1, 1000) }}|{{ fake.sentence() }}"}
  - name: refusal
    match: {last_user: {starts_with: "refuse"}}
    reply: {refusal: "No, {{ request.last_user | upper }}."}
  - name: loop
    match: {last_user: {starts_with: "loop"}}
    reply: {content: "{% for m in request.messages %}{{ m.role }}:{{ m.content }};{% endfor %}"}
  - name: options
    match: {last_user: {starts_with: "options"}}
    reply: {content: "{{ request.tools | join(',') }}|{{ request.tool_choice }}|{{ request.metadata.suite }}|{{ request.stream }}"}
"""


def test_template_sees_the_request(make_server: MakeServer, client_for):
    client = client_for(make_server(TEMPLATES))
    messages = [{"role": "system", "content": "be brief"}, *conversation(2, "echo me")]
    answer = ask(client, messages=messages, model="anthropic/claude-haiku-4.5")
    assert answer.content == "anthropic/claude-haiku-4.5|2|echo me|be brief"
    loop = ask(client, messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "loop"}])
    assert loop.content == "system:s;user:loop;"
    refusal = ask(client, "refuse this")
    assert refusal.completion.choices[0].message.refusal == "No, REFUSE THIS."
    options = ask(
        client,
        "options",
        tools=[{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "b"}}],
        tool_choice="required",
        metadata={"suite": "s1"},
    )
    assert options.content == "a,b|required|s1|False"
    assert ask_stream(client, "options", metadata={"suite": "s2"})[1] == "|none|s2|True"


def test_fake_values_are_the_same_for_the_same_conversation(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(TEMPLATES)
    one, two = open_client(server, session + "-1"), open_client(server, session + "-2")
    first = ask(one, "fake one").content
    assert first is not None and first.count("|") == 3
    assert ask(one, "fake one").content == first
    assert ask(two, "fake one").content == first
    assert ask(one, "fake two").content != first  # another conversation, other values (fake.uuid4 alone)


def test_fake_values_follow_the_seed(make_server: MakeServer, session: str, open_client: OpenClient):
    a = ask(open_client(make_server(TEMPLATES, seed=1), session), "fake").content
    b = ask(open_client(make_server(TEMPLATES, seed=1), session), "fake").content
    c = ask(open_client(make_server(TEMPLATES, seed=2), session), "fake").content
    assert a == b
    assert a != c


INTERNALS = [
    "{{ request.__class__ }}",
    "{{ fake._faker }}",
    "{{ ''.__class__.__mro__ }}",
    "{{ lipsum.__globals__ }}",
    "{{ request.keys.__self__ }}",
    "{{ fake }}",
    "{{ request.keys }}",
]
LEAKS = ("Traceback", " at 0x", "<class", "<built-in", "<function", "__mro__", "zenmux_emulator.render", "object at")


@pytest.mark.parametrize("template", INTERNALS)
def test_templates_cannot_reach_python_internals(make_server: MakeServer, client_for, template: str):
    source = f"""
        rules:
          - name: probe
            reply: {{content: "{template}"}}
    """
    try:
        server = make_server(source)
    except ScenarioError as refused:  # refused at load: also fine, as long as nothing leaks
        shown = str(refused)
        assert "template error" in shown
        assert not [leak for leak in LEAKS if leak in shown.replace(template, "")], shown
        return
    client = client_for(server)
    try:
        answer = ask(client, "hi")
    except openai.InternalServerError as error:
        body = error.body
        assert isinstance(body, dict) and body["type"] == "emulator_template_error"
        assert "'probe'" in body["message"]
        shown = body["message"]
    else:
        shown = answer.content or ""
    assert not [leak for leak in LEAKS if leak in shown], f"{template} showed {shown!r}"


def test_a_fake_generator_outside_the_whitelist_fails_at_load_with_its_line(make_server: MakeServer):
    with pytest.raises(ScenarioError) as caught:
        make_server("""
            rules:
              - name: binary
                reply: {content: "{{ fake.binary(10) }}"}
        """)
    [problem] = caught.value.problems
    assert problem.line == 4 and problem.path == "rules[0].reply.content"
    assert "fake.binary is not available" in problem.reason and "sentence" in problem.reason


@pytest.mark.parametrize(
    "template",
    ["{{ 10 / request.turn }}", "{{ range(1000000) | list | length }}"],
    ids=["division-by-zero", "range-too-big"],
)
def test_a_failing_template_expression_is_a_template_error_not_an_internal_error(
    make_server: MakeServer, client_for, template: str
):
    client = client_for(
        make_server(f"""
        rules:
          - name: arithmetic
            reply: {{content: "{template}"}}
    """)
    )
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "hi")
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "emulator_template_error", body
    assert "'arithmetic'" in body["message"]


BOUNDED = {
    "a power far past the bit limit": ("{{ (10 ** (request.turn + 10**7)) % 7 }}", "numbers up to 16,384 bits"),
    "a string of a billion characters": ("{{ 'x' * 10**9 }}", "values up to 4,000,000 characters or items"),
    "a list of a billion items": ("{{ ([1] * 10**9) | length }}", "values up to 4,000,000 characters or items"),
    "a padding width past the limit": ("{{ 'x'.center(10**8) }}", "values up to 4,000,000 characters or items"),
    "a filter width past the limit": ("{{ 'x' | indent(10**8) }}", "values up to 4,000,000 characters or items"),
    "a format width past the limit": ("{{ '%100000000d' | format(1) }}", "values up to 4,000,000 characters or items"),
    "a method format width past the limit": (
        "{{ '{:>100000000}'.format(1) }}",
        "values up to 4,000,000 characters or items",
    ),
    "a percent format width past the limit": ("{{ '%100000000d' % 1 }}", "values up to 4,000,000 characters or items"),
    "a width taken from the arguments": ("{{ '%*d' % (10**8, 1) }}", "values up to 4,000,000 characters or items"),
    "a nested format width": ("{{ '{:{}}'.format(1, 10**8) }}", "values up to 4,000,000 characters or items"),
    "a filter width from the arguments": (
        "{{ '%*d' | format(10**8, 1) }}",
        "values up to 4,000,000 characters or items",
    ),
    "doubling through a namespace": (
        "{% set ns = namespace(x='ab') %}{% for i in range(60) %}"
        "{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x | length }}",
        "values up to 4,000,000 characters or items",
    ),
    "loops nested past the step limit": (
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}done",
        "100,000 steps",
    ),
    "recursion that branches": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
        "100,000 steps",
    ),
    "a reply past the output limit": (
        "{% for i in range(5000) %}{{ 'x' * 1000 }}{% endfor %}",
        "replies up to 4,000,000 characters",
    ),
    "a set block that piles output up": (
        "{% set big %}{% for i in range(90000) %}{{ request.last_user * 1000 }}"
        "{% endfor %}{% endset %}{{ big | length }}",
        "characters made",
    ),
}


@pytest.mark.parametrize("template, limit", BOUNDED.values(), ids=BOUNDED.keys())
def test_a_template_that_would_take_unbounded_time_or_memory_is_refused_naming_the_limit(
    make_server: MakeServer, client_for, template: str, limit: str
):
    """Each of these would hold the event loop for seconds or take gigabytes; each is stopped
    early and answered with the rule and the limit it went past."""
    server = make_server(
        textwrap.dedent("""
        rules:
          - name: greedy
            reply: {content: "%s"}
    """)
        % template.replace('"', '\\"')
    )
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client_for(server), "hi")
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "emulator_template_error", body
    assert "the template of rule 'greedy' failed" in body["message"] and "template limit" in body["message"]
    assert limit in body["message"], body["message"]


def test_templates_within_the_limits_still_render(make_server: MakeServer, client_for):
    server = make_server(
        textwrap.dedent("""
        rules:
          - name: modest
            reply:
              content: >-
                {{ 2 ** 64 }} {{ 'ab' * 3 }} {{ [1, 2] * 2 }} {{ 'x'.center(5) | length }} {{ '%05d' | format(42) }}
                {{ '{:>4}'.format(7) }} {{ '%s!' % request.last_user }}
                {%- set ns = namespace(x='a') %}{% for i in range(10) %}{% set ns.x = ns.x ~ 'b' %}{% endfor %}
                {{ ns.x }} {% for m in request.messages %}{{ loop.index }}:{{ m.role }}{% endfor %}
                {{ 'done' ~ '.' }}
    """)
    )
    assert ask(client_for(server), "hi").content == (
        "18446744073709551616 ababab [1, 2, 1, 2] 5 00042    7 hi! abbbbbbbbbb 1:user done."
    )


def test_fake_dates_do_not_depend_on_the_wall_clock(make_server: MakeServer, client_for):
    # Faker's date generators pick a moment between 1970 and *now*: seeded alike, they still drift.
    client = client_for(
        make_server("""
        rules:
          - name: dates
            reply: {content: "{{ fake.iso8601() }}"}
    """)
    )
    first = ask(client, "when?").content
    time.sleep(1.2)  # not a timing assertion: the wall clock must move past a second for the drift to show
    assert ask(client, "when?").content == first


def test_fake_arguments_are_bounded(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: big
            reply: {content: "{{ fake.random_int(0, 100000000) }}"}
    """)
    )
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "hi")
    assert isinstance(caught.value.body, dict) and caught.value.body["type"] == "emulator_template_error"


def test_an_undefined_template_name_is_a_template_error(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: typo
            reply: {content: "{{ request.last_usr }}"}
    """)
    )
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "hi")
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "emulator_template_error"
    assert "last_usr" in body["message"]


def test_a_template_printing_half_a_surrogate_pair_is_a_template_error(make_server: MakeServer, client_for):
    """The loader refuses a lone surrogate in the file; a template can still make one from a
    Jinja string literal at request time, which no reply can carry as UTF-8."""
    client = client_for(
        make_server("""
        rules:
          - name: half
            reply: {content: '{{ "\\ud800" }} and more'}
    """)
    )
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "hi")
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "emulator_template_error"
    assert "'half'" in body["message"] and "surrogates not allowed" in body["message"]


def test_plain_text_with_braces_is_not_a_template(make_server: MakeServer, client_for):
    client = client_for(
        make_server("""
        rules:
          - name: json
            reply: {content: '{"a": {"b": 1}}'}
    """)
    )
    assert ask(client, "hi").content == '{"a": {"b": 1}}'


def test_a_reply_whose_template_fails_is_not_used_up(make_server: MakeServer, client_for):
    # The failure is the scenario's: the SDK's retries must not eat through the sequence.
    client = client_for(
        make_server("""
        rules:
          - name: steps
            replies:
              - {content: "{{ 10 / request.turn }}"}
              - {content: "second"}
    """)
    )
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            ask(client, "hi")
    turn_one = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ]
    assert ask(client, messages=turn_one).content == "10.0"
    assert ask(client, "hi").content == "second"
