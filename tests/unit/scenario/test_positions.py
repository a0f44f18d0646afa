"""Safe YAML loading with source positions, and pydantic errors located in the source."""

from __future__ import annotations

import itertools
import sys
from typing import Literal

import pydantic
import pytest

from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.scenario.located import problems_from_validation_error
from zenmux_emulator.scenario.positions import (
    INT64,
    MAX_DEPTH,
    dotted,
    load_yaml,
    locate,
    snippet,
)

SCENARIO = """\
name: demo
created: 2024-05-01
rules:
  - name: greeting
    match: {model: 5}
    reply:
      content: hello
  - name: second
    reply:
      content:
        - one
        - two
"""


@pytest.fixture
def loaded():
    return load_yaml(SCENARIO, "demo.yaml")


def test_data_is_plain_and_dates_stay_strings(loaded):
    data, _ = loaded
    assert data["created"] == "2024-05-01"
    assert data["rules"][1]["reply"]["content"] == ["one", "two"]


def test_nested_keys_and_list_items_are_located(loaded):
    _, positions = loaded
    assert locate(positions, ("name",)) == (1, 7)
    assert locate(positions, ("rules",)) == (4, 3)
    assert locate(positions, ("rules", 0)) == (4, 5)
    assert locate(positions, ("rules", 0, "match", "model")) == (5, 20)
    assert locate(positions, ("rules", 1, "reply", "content", 1)) == (12, 11)
    assert locate(positions, ("rules", -1, "name")) == (8, 11)


def test_key_position_is_kept(loaded):
    _, positions = loaded
    assert locate(positions, ("rules", 0, "match", "model"), key=True) == (5, 13)
    assert locate(positions, ("rules", 1, "reply"), key=True) == (9, 5)


def test_missing_key_falls_back_to_nearest_ancestor(loaded):
    _, positions = loaded
    assert locate(positions, ("rules", 0, "refusal")) == (4, 5)
    assert locate(positions, ("rules", 0, "reply", "nope", "deeper")) == (7, 7)
    assert locate(positions, ("rules", 9)) == (4, 3)
    assert locate(positions, ("absent",)) == (1, 1)


def test_aliases_and_merge_keys_are_located():
    text = "base: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\ncopy: *b\n"
    data, positions = load_yaml(text, "m.yaml")
    assert data["merged"] == {"x": 1, "y": 3}
    assert locate(positions, ("merged", "y")) == (4, 6)
    assert locate(positions, ("merged", "x")) == (1, 14)
    assert locate(positions, ("copy", "y")) == (1, 20)


def test_empty_file_is_none():
    assert load_yaml("", "e.yaml")[0] is None
    assert load_yaml("# nothing here\n", "e.yaml")[0] is None


def test_duplicate_keys_are_refused_at_the_second_occurrence():
    text = "name: a\nrules: []\nname: b\nother: {k: 1, k: 2}\n"
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "dup.yaml")
    problems = caught.value.problems
    assert [(p.line, p.column, p.reason) for p in problems] == [
        (3, 1, "duplicate key 'name'"),
        (4, 15, "duplicate key 'k'"),
    ]
    assert problems[0].file == "dup.yaml"
    assert ">  3 | name: b" in problems[0].snippet


def test_a_merged_key_may_be_overridden():
    data, _ = load_yaml("a: &a {k: 1}\nb:\n  <<: *a\n  k: 2\n", "ok.yaml")
    assert data["b"] == {"k": 2}


def test_syntax_error_is_located():
    text = "name: demo\nrules:\n  - name: x\n    match: a: b\n"
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "bad.yaml")
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.column, problem.path) == ("bad.yaml", 4, 13, "")
    assert problem.reason.startswith(
        "a ': ' where no key can start"
    )  # not PyYAML's "mapping values are not allowed here"
    assert "a value that contains ': ' needs quotes (content: \"note: this\")" in problem.reason
    assert str(problem) == f"bad.yaml:4:13: {problem.reason}"
    assert ">  4 |     match: a: b\n     |             ^" in problem.snippet


def test_unclosed_flow_sequence_names_where_it_started():
    with pytest.raises(ScenarioError) as caught:
        load_yaml("a: 1\nb: [1, 2\n", "bad.yaml")
    [problem] = caught.value.problems
    assert problem.line == 3
    assert problem.reason.startswith("the [...] opened at line 2 is not closed here: a ',' or ']' is missing")


@pytest.mark.parametrize(
    "text",
    [
        "x: !!python/object/apply:os.system ['echo hacked']\n",
        "x: !!python/object:collections.OrderedDict {}\n",
        "x: !!python/name:os.system\n",
    ],
)
def test_python_tags_are_refused(text):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "evil.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column) == (1, 4)
    assert "could not determine a constructor" in problem.reason


def test_forbidden_character_is_located():
    with pytest.raises(ScenarioError) as caught:
        load_yaml("a: 1\nb: x\x07\n", "ctl.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column) == (2, 5)
    assert "#x0007" in problem.reason


def test_snippet_format():
    text = "one\ntwo\nthree\nfour\nfive\nsix\n"
    assert snippet(text, 4, 3) == ("   2 | two\n   3 | three\n>  4 | four\n     |   ^\n   5 | five\n   6 | six")
    assert snippet(text, 1, None, context=1) == ">  1 | one\n   2 | two"
    assert snippet("a\tb: c\n", 1, 3) == ">  1 | a\tb: c\n     |  \t^"
    assert snippet("only\n", 2, 1) == "   1 | only\n>  2 |\n     | ^"


def test_snippet_widens_for_long_files():
    text = "\n".join(f"line {n}" for n in range(1, 1201))
    assert snippet(text, 1000, 1, context=0) == ">1000 | line 1000\n      | ^"


def test_dotted():
    assert dotted(("rules", 0, "match", "model")) == "rules[0].match.model"
    assert dotted(()) == ""
    assert dotted((0, "a")) == "[0].a"
    assert dotted(("headers", "x-request-id")) == "headers.x-request-id"
    assert dotted(("map", "a b", 1)) == "map['a b'][1]"


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class TextMatch(_Strict):
    kind: Literal["text"] = "text"
    contains: str


class Reply(_Strict):
    content: str | list[str]
    delay_ms: int = 0


class Rule(_Strict):
    name: str
    match: TextMatch | None = None
    reply: Reply


class Scenario(_Strict):
    rules: list[Rule]


BROKEN = """\
rules:
  - name: first
    reply:
      content: hi
  - name: second
    reply:
      content:
        - fine
        - [nested]
  - name: third
    match: {contains: x, contians: y}
"""


def _problems(**extra):
    data, positions = load_yaml(BROKEN, "broken.yaml")
    with pytest.raises(pydantic.ValidationError) as caught:
        Scenario.model_validate(data)
    return problems_from_validation_error(
        caught.value, text=BROKEN, filename="broken.yaml", positions=positions, data=data, **extra
    )


def test_validation_errors_are_located_in_document_order():
    problems = _problems()
    assert [(p.line, p.column, p.path) for p in problems] == [
        # the `list[str]` member of `str | list[str]` got as far as the item: the `str` member's
        # "expected text, got a list" at rules[1].reply.content says less, and is left out
        (9, 11, "rules[1].reply.content[1]"),
        (10, 5, "rules[2].reply"),
        (11, 26, "rules[2].match.contians"),
    ]
    wrong_type, missing, unknown = problems
    assert wrong_type.reason == "expected text, got a list"
    assert missing.reason == "missing key 'reply'"
    assert unknown.reason == "unknown key 'contians'"
    assert all(p.file == "broken.yaml" for p in problems)
    assert ">  9 |         - [nested]\n     |           ^" in wrong_type.snippet


def test_union_member_names_are_not_keys():
    text = "rules:\n  - name: x\n    reply: {content: 5}\n"
    data, positions = load_yaml(text, "u.yaml")
    with pytest.raises(pydantic.ValidationError) as caught:
        Scenario.model_validate(data)
    assert any("list[str]" in error["loc"] for error in caught.value.errors())
    problems = problems_from_validation_error(
        caught.value, text=text, filename="u.yaml", positions=positions, data=data
    )
    assert {p.path for p in problems} == {"rules[0].reply.content"}
    assert {(p.line, p.column) for p in problems} == {(3, 22)}


def test_unknown_key_suggests_the_nearest_field():
    unknown = _problems(model=Scenario)[-1]
    assert unknown.reason == "unknown key 'contians'; did you mean 'contains'?"


def test_root_prefixes_paths():
    text = "scenario:\n  rules:\n    - name: 5\n      reply: {content: x}\n"
    data, positions = load_yaml(text, "r.yaml")
    with pytest.raises(pydantic.ValidationError) as caught:
        Scenario.model_validate(data["scenario"])
    [problem] = problems_from_validation_error(
        caught.value, text=text, filename="r.yaml", positions=positions, root=("scenario",), data=data["scenario"]
    )
    assert (problem.line, problem.column, problem.path) == (3, 13, "scenario.rules[0].name")
    assert problem.reason == "expected text, got 5"


# A value its tag cannot read, and nesting without bound, are problems like any other: located, never
# the constructor's own KeyError / ValueError / IndexError / AttributeError, nor a RecursionError.

UNREADABLE = {
    "bool": ("a: !!bool tre\n", (1, 4), "cannot read '!!bool tre': not a boolean"),
    "int": ("a: !!int x\n", (1, 4), "cannot read '!!int x': not an integer"),
    "int, nothing": ("a: !!int\n", (1, 4), "cannot read '!!int': not an integer"),
    "int, only a sign": ("a: !!int +\n", (1, 4), "cannot read '!!int +': not an integer"),
    "int, a fraction": ("a: [1, !!int 1.5]\n", (1, 8), "cannot read '!!int 1.5': not an integer"),
    "int, plain hex without digits": ("a: 0x_\n", (1, 4), "cannot read '0x_': not an integer"),
    "float": ("a: !!float abc\n", (1, 4), "cannot read '!!float abc': not a number"),
    "float, empty": ("a: !!float ''\n", (1, 4), "cannot read \"!!float ''\": not a number"),
    "timestamp": ("a: !!timestamp nope\n", (1, 4), "cannot read '!!timestamp nope': not a timestamp"),
    "timestamp, no such month": (
        "a: !!timestamp 2024-13-01\n",
        (1, 4),
        "cannot read '!!timestamp 2024-13-01': not a timestamp (month must be in 1..12)",
    ),
    "verbatim tag": (
        "a: !<tag:yaml.org,2002:bool> tre\n",
        (1, 4),
        "cannot read '!<tag:yaml.org,2002:bool> tre': not a boolean",
    ),
    "tag shorthand of a %TAG directive": (
        "%TAG !y! tag:yaml.org,2002:\n---\na: !y!int x\n",
        (3, 4),
        "cannot read '!y!int x': not an integer",
    ),
    "a key": ("? !!bool maybe\n: 1\n", (1, 3), "cannot read '!!bool maybe': not a boolean"),
    "a block scalar": ("a: !!int |\n  12x\n  more\n", (1, 4), "cannot read '!!int | ...': not an integer"),
    "an integer too long to convert": (
        "a: " + "1" * 5000 + "\n",
        (1, 4),
        f"cannot read '{'1' * 54} ...': not an integer (Exceeds the limit (4300 "
        "digits) for integer string conversion: value has 5000 digits)",
    ),
    # PyYAML's own ConstructorError already: pinned so that it stays a located problem.
    "binary, bad padding": ("a: !!binary abc\n", (1, 4), "failed to decode base64 data: Incorrect padding"),
}


@pytest.mark.parametrize(("text", "where", "reason"), UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_value_its_tag_cannot_read_is_located(text: str, where: tuple[int, int], reason: str):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "tags.yaml")
    [problem] = caught.value.problems
    assert (problem.file, (problem.line, problem.column), problem.path, problem.reason) == (
        "tags.yaml",
        where,
        "",
        reason,
    )
    assert f"\n     | {' ' * (where[1] - 1)}^" in problem.snippet


def test_the_problem_points_at_the_offending_node_among_good_ones():
    text = (
        "rules:\n  - name: a\n    reply: {content: x}\n    stream: !!bool true\n  - name: b\n    stream: !!bool tre\n"
    )
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "tags.yaml")
    [problem] = caught.value.problems
    assert str(problem) == "tags.yaml:6:13: cannot read '!!bool tre': not a boolean"
    assert ">  6 |     stream: !!bool tre\n     |             ^" in problem.snippet


def _nested(levels: int) -> str:
    return "a: " + "[" * levels + "]" * levels + "\n"


def test_nesting_up_to_the_limit_loads():
    _data, positions = load_yaml(_nested(MAX_DEPTH - 1), "deep.yaml")  # the top-level mapping is one level
    assert locate(positions, ("a",) + (0,) * (MAX_DEPTH - 2)) == (1, 3 + MAX_DEPTH - 1)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (_nested(MAX_DEPTH), (1, 4 + MAX_DEPTH - 1)),  # the first collection past the limit
        (_nested(100_000), (1, 4 + MAX_DEPTH - 1)),
        ("a: " + "{k: " * 5000 + "1" + "}" * 5000 + "\n", (1, 4 + 4 * (MAX_DEPTH - 1))),
        (
            "a:\n" + "".join(f"{'  ' * (i + 1)}k{i}:\n" for i in range(MAX_DEPTH + 50)),
            (MAX_DEPTH + 1, 2 * MAX_DEPTH + 1),
        ),
        ("".join(f"{'  ' * i}- \n" for i in range(3000)) + " " * 6000 + "x\n", (MAX_DEPTH + 1, 2 * MAX_DEPTH + 1)),
    ],
    ids=["flow", "flow, 100,000 levels", "flow mappings", "block mappings", "block sequences"],
)
def test_nesting_past_the_limit_is_located(text: str, where: tuple[int, int]):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "deep.yaml")
    [problem] = caught.value.problems
    assert ((problem.line, problem.column), problem.reason) == (where, f"nesting deeper than {MAX_DEPTH} levels")


def _alias_chain(links: int) -> str:
    """`l0: &l0 [x]`, `l1: &l1 [*l0]`, ...: each link one level deeper than the one before."""
    return "l0: &l0 [x]\n" + "".join(f"l{i}: &l{i} [*l{i - 1}]\n" for i in range(1, links))


def test_nesting_through_aliases_counts_too():
    data, _ = load_yaml(_alias_chain(MAX_DEPTH - 1), "chain.yaml")
    assert len(data) == MAX_DEPTH - 1
    with pytest.raises(ScenarioError) as caught:
        load_yaml(_alias_chain(MAX_DEPTH), "chain.yaml")
    [problem] = caught.value.problems
    # `l99: &l99 [*l98]`: the alias, at level 2, brings 99 more.
    assert (problem.line, problem.column) == (MAX_DEPTH, len(f"l{MAX_DEPTH - 1}: &l{MAX_DEPTH - 1} [") + 1)
    assert problem.reason == f"nesting deeper than {MAX_DEPTH} levels, through alias *l{MAX_DEPTH - 2}"


def test_an_alias_bomb_is_shallow_and_loads():
    text = "a: &a [x, x]\n" + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}]\n" for p, c in itertools.pairwise("abcdefghi"))
    _data, positions = load_yaml(text, "bomb.yaml")
    assert locate(positions, ("i", 2, 0, 1, 0, 0, 0, 0, 0, 1)) == (1, 11)


@pytest.mark.parametrize(
    ("text", "where", "anchor"),
    [
        ("a: &x [1, *x]\n", (1, 11), "x"),
        ("a: &x {self: *x}\n", (1, 14), "x"),
        ("a: &outer\n  inner: &inner\n    - *outer\n", (3, 7), "outer"),
        ("a: &m\n  <<: *m\n", (2, 7), "m"),
    ],
)
def test_a_recursive_alias_is_refused_where_it_stands(text: str, where: tuple[int, int], anchor: str):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "loop.yaml")
    [problem] = caught.value.problems
    assert ((problem.line, problem.column), problem.reason) == (
        where,
        f"recursive alias *{anchor}: the value would contain itself",
    )


def test_a_stack_already_nearly_full_is_a_problem_not_a_recursion_error():
    def at_depth(frames: int) -> object:
        return at_depth(frames - 1) if frames else load_yaml(_nested(MAX_DEPTH - 1), "deep.yaml")

    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    with pytest.raises(ScenarioError) as caught:
        at_depth(sys.getrecursionlimit() - depth - 60)  # room to start loading, not for 99 levels
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.reason) == ("deep.yaml", None, "nesting too deep to load here")


# Any scalar may end up in a JSON reply: integers stay within 64 bits, strings within Unicode.


def test_integers_of_64_bits_load():
    data, _ = load_yaml(f"a: [{INT64[0]}, {INT64[1]}, 0x7fffffffffffffff, -0b1]\n", "ints.yaml")
    assert data == {"a": [-(2**63), 2**63 - 1, 2**63 - 1, -1]}


BEYOND_64_BITS = {
    "above": (f"a: {2**63}\n", (1, 4), f"integer '{2**63}' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1"),
    "below": (
        f"a: [{-(2**63) - 1}]\n",
        (1, 5),
        f"integer '{-(2**63) - 1}' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1",
    ),
    "hex, tagged": (
        "a: !!int 0x10000000000000000\n",
        (1, 4),
        "integer '!!int 0x10000000000000000' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1",
    ),
    "a key": (f"{10**30}: a\n", (1, 1), f"integer '{10**30}' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1"),
}


@pytest.mark.parametrize(("text", "where", "reason"), BEYOND_64_BITS.values(), ids=BEYOND_64_BITS.keys())
def test_an_integer_beyond_64_bits_is_located(text: str, where: tuple[int, int], reason: str):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "ints.yaml")
    [problem] = caught.value.problems
    assert ((problem.line, problem.column), problem.path, problem.reason) == (where, "", reason)


def test_escaped_surrogate_pairs_are_joined_as_json_reads_them():
    # What `json.dumps` writes for characters past U+FFFF (ensure_ascii); libyaml refuses these escapes.
    data, positions = load_yaml('a: "\\ud83d\\ude00 and \\U0001F600"\n"\\ud83c\\udf89": party\n', "pairs.yaml")
    assert data == {"a": "\U0001f600 and \U0001f600", "\U0001f389": "party"}
    assert locate(positions, ("\U0001f389",), key=True) == (2, 1)


@pytest.mark.parametrize(
    ("text", "where", "unit"),
    [
        ('a: "\\ud800"\n', (1, 4), "d800"),
        ('a: "x \\ude00 y"\n', (1, 4), "de00"),
        ('a: "\\ude00\\ud83d"\n', (1, 4), "de00"),  # the wrong way round is no pair
        ('a: ["ok", "\\U0000D83D"]\n', (1, 11), "d83d"),
        ('"\\udbff": 1\n', (1, 1), "dbff"),
    ],
    ids=["high", "low", "reversed", "long escape", "a key"],
)
def test_a_lone_surrogate_is_located(text: str, where: tuple[int, int], unit: str):
    with pytest.raises(ScenarioError) as caught:
        load_yaml(text, "lone.yaml")
    [problem] = caught.value.problems
    assert ((problem.line, problem.column), problem.reason) == (
        where,
        f"\\u{unit} is half of a surrogate pair: alone it is not a character and cannot be sent as UTF-8",
    )


def test_escapes_that_are_not_surrogates_are_untouched():
    data, _ = load_yaml('a: \'\\ud800\'\nb: "\\\\ud800"\nc: "\\u00e9\\ud7ff\\ue000"\n', "fine.yaml")
    assert data == {"a": "\\ud800", "b": "\\ud800", "c": "\u00e9\ud7ff\ue000"}
