"""What a reply sends as JSON is JSON at load: a value JSON cannot carry is a located problem, not a 500
at request time (tool call `arguments` are free-form; every number of a scenario is finite)."""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path

import pytest

from tests.support.shipped import build_set, load_paths
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.scenario.schema import ToolCallSpec


def arguments(value: str) -> str:
    """A file whose one tool call has `arguments: <value>` on line 6, at column 22."""
    return f"rules:\n  - name: call\n    reply:\n      tool_calls:\n        - name: f\n          arguments: {value}\n"


def problems(text: str) -> list[tuple[int | None, int | None, str, str]]:
    with pytest.raises(ScenarioError) as caught:
        build_set([("f.yaml", text)])
    return [(p.line, p.column, p.path, p.reason) for p in caught.value.problems]


AT = "rules[0].reply.tool_calls[0].arguments"
NOT_JSON = {
    "binary": (
        "{x: !!binary aGk=}",
        (6, 26),
        f"{AT}.x",
        "not JSON: binary data (!!binary) cannot be sent in a JSON reply; write a string",
    ),
    "set": (
        "{x: [1, !!set {a, b}]}",
        (6, 30),
        f"{AT}.x[1]",
        "not JSON: a set (!!set) cannot be sent in a JSON reply; write a list",
    ),
    "set, the whole value": (
        "!!set {a}",
        (6, 22),
        AT,
        "not JSON: a set (!!set) cannot be sent in a JSON reply; write a list",
    ),
    "timestamp": (
        "{when: !!timestamp 2024-05-01}",
        (6, 29),
        f"{AT}.when",
        "not JSON: a timestamp (!!timestamp) cannot be sent in a JSON reply; write a string",
    ),
    "ordered map": (
        "!!omap [a: 1]",
        (6, 30),
        f"{AT}[0]",
        "not JSON: a pair (!!omap, !!pairs) cannot be sent in a JSON reply; write a mapping",
    ),
    "integer key, nested": (
        "{x: {1: a}}",
        (6, 27),
        f"{AT}.x[1]",
        "not JSON: key 1 is a number, but JSON object keys are strings; quote it",
    ),
    "integer key, at the top": (
        "{2: a}",
        (6, 23),
        f"{AT}[2]",
        "not JSON: key 2 is a number, but JSON object keys are strings; quote it",
    ),
    "boolean key": (
        "{x: [{on: a}]}",
        (6, 28),
        f"{AT}.x[0][True]",
        "not JSON: key True is a boolean (YAML reads yes, no, on and off as booleans too), "
        "but JSON object keys are strings; quote it",
    ),
    "null key": (
        "{x: {~: a}}",
        (6, 27),
        f"{AT}.x[None]",
        "not JSON: key None is null, but JSON object keys are strings; quote it",
    ),
    "NaN": (
        "{x: .nan}",
        (6, 26),
        f"{AT}.x",
        "not JSON: nan has no JSON form (JSON numbers are finite); arguments given as a string are sent as written",
    ),
    "infinity": (
        "[1, -.inf]",
        (6, 26),
        f"{AT}[1]",
        "not JSON: -inf has no JSON form (JSON numbers are finite); arguments given as a string are sent as written",
    ),
}


@pytest.mark.parametrize(("value", "where", "path", "reason"), NOT_JSON.values(), ids=NOT_JSON.keys())
def test_arguments_that_json_cannot_carry_are_located(value: str, where: tuple[int, int], path: str, reason: str):
    assert problems(arguments(value)) == [(*where, path, reason)]


def test_every_tool_call_is_checked_and_reported():
    text = textwrap.dedent("""\
        rules:
          - name: two
            reply:
              tool_calls:
                - {name: f, arguments: {ok: [1, {deep: !!binary aGk=}]}}
                - {name: g, arguments: {1: one}}
          - name: fine
            reply: {tool_calls: [{name: h, arguments: {a: 1}}]}
        """)
    assert [(line, column, path) for line, column, path, _ in problems(text)] == [
        (5, 48, "rules[0].reply.tool_calls[0].arguments.ok[1].deep"),
        (6, 33, "rules[0].reply.tool_calls[1].arguments[1]"),
    ]


def test_json_values_load_as_written():
    value = (
        '{text: "Zürich 東京 😀", quoted: "2024-05-01", date: 2024-05-01, numbers: [0, -7, 2.5, 1.0e-3, '
        "9223372036854775807, -9223372036854775808], flags: [true, false], nothing: null, "
        'nested: {list: [[], {}, [{a: [1]}]]}, "1": "a quoted key"}'
    )
    [rule] = build_set([("f.yaml", arguments(value))]).rules
    assert rule.replies[0].spec.tool_calls[0].arguments == {
        "text": "Zürich 東京 😀",
        "quoted": "2024-05-01",
        "date": "2024-05-01",  # dates stay strings
        "numbers": [0, -7, 2.5, 0.001, 2**63 - 1, -(2**63)],
        "flags": [True, False],
        "nothing": None,
        "nested": {"list": [[], {}, [{"a": [1]}]]},
        "1": "a quoted key",
    }


def test_string_arguments_are_sent_as_written_and_not_checked():
    [rule] = build_set([("f.yaml", arguments("'{\"x\": NaN}'"))]).rules
    assert rule.replies[0].spec.tool_calls[0].arguments == '{"x": NaN}'


def test_arguments_made_in_code_are_checked_too():
    with pytest.raises(ValueError, match=r"not JSON: a timestamp"):
        ToolCallSpec(name="f", arguments={"when": datetime.date(2024, 5, 1)})
    assert ToolCallSpec(name="f", arguments={"a": [1.5, None]}).arguments == {"a": [1.5, None]}


@pytest.mark.parametrize(
    ("text", "where", "path", "reason"),
    [
        (
            "rules:\n  - name: a\n    reply: {content: x, stream: {first_token_ms: .inf}}\n",
            (3, 50),
            "rules[0].reply.stream.first_token_ms",
            "expected a finite number, got .inf",
        ),
        (
            "rules:\n  - name: a\n    reply: {content: x, stream: {chunk_ms: NaN}}\n",
            (3, 44),
            "rules[0].reply.stream.chunk_ms",
            "expected a finite number, got 'NaN'",
        ),
        (
            "models:\n  acme/x: {pricing: {prompt: .inf}}\n",
            (2, 30),
            "models['acme/x'].pricing.prompt",
            "expected a finite number, got .inf",
        ),
        (
            "settings: {balances: {sk-a: .inf}}\n",
            (1, 29),
            "settings.balances.sk-a",
            "expected a finite number, got .inf",
        ),
        (
            "models:\n  acme/x: {providers: [{name: p, latency_ms: .inf}]}\n",
            (2, 46),
            "models['acme/x'].providers[0].latency_ms",
            "expected a finite number, got .inf",
        ),
    ],
    ids=["timing", "timing as a string", "price", "balance", "latency"],
)
def test_numbers_are_finite_everywhere(text: str, where: tuple[int, int], path: str, reason: str):
    assert problems(text) == [(*where, path, reason)]


@pytest.mark.parametrize(
    ("text", "where", "path", "reason"),
    [
        (
            "rules:\n  - name: a\n    reply: {content: x, usage: {prompt_tokens: 99999999999999999999}}\n",
            (3, 48),
            "",
            "integer '99999999999999999999' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1",
        ),
        (
            "rules:\n  - name: a\n    priority: -9223372036854775809\n    reply: {content: x}\n",
            (3, 15),
            "",
            "integer '-9223372036854775809' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1",
        ),
        (
            'rules:\n  - name: a\n    reply: {content: "\\ud83d"}\n',
            (3, 22),
            "",
            "\\ud83d is half of a surrogate pair: alone it is not a character and cannot be sent as UTF-8",
        ),
        (
            'rules:\n  - name: a\n    reply: {raw: {body: x, content_type: "text/html\\r\\nX-Evil: 1"}}\n',
            (3, 42),
            "rules[0].reply.raw.content_type",
            "content_type must be printable ASCII without line breaks",
        ),
    ],
    ids=["usage beyond 64 bits", "priority beyond 64 bits", "lone surrogate", "content type with a line break"],
)
def test_other_values_a_reply_could_not_send_are_located(text: str, where: tuple[int, int], path: str, reason: str):
    assert problems(text) == [(*where, path, reason)]


def test_an_escaped_surrogate_pair_is_the_character(tmp_path: Path):
    path = tmp_path / "pair.yaml"
    path.write_text('rules:\n  - name: a\n    reply: {content: "party \\ud83c\\udf89"}\n', encoding="utf-8")
    [rule] = load_paths([path]).rules
    assert rule.replies[0].content == "party \U0001f389"


@pytest.mark.parametrize(
    "content",
    [
        "{{ " + "(" * 500 + "1" + ")" * 500 + " }}",
        "{{ 1" + " + 1" * 2000 + " }}",
        "{% if x %}" * 120 + "{% endif %}" * 120,
    ],
    ids=["parentheses", "operators", "blocks"],
)
def test_a_template_nested_too_deeply_is_a_template_error_not_a_crash(content: str):
    text = f"rules:\n  - name: a\n    reply:\n      content: '{content}'\n"
    assert problems(text) == [
        (4, 16, "rules[0].reply.content", "template error: the template nests too deeply to compile")
    ]
