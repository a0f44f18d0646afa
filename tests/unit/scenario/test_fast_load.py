"""Scenario YAML is loaded by libyaml, and positions kept only when a problem needs them.

The pure-Python loader (`load_yaml`) stays the reference: whatever the fast path takes must load to
the same data and the same rule lines, and whatever it cannot vouch for goes to the reference loader,
which reports exactly as before.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import SHIPPED
from tests.support.shipped import build_set, load_paths
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.scenario import loader, positions
from zenmux_emulator.scenario.loader import read_sources
from zenmux_emulator.scenario.positions import load_yaml, load_yaml_fast, locate


def test_pyyaml_here_has_libyaml() -> None:
    """The fast path needs PyYAML built with libyaml (PyPI's wheels are). Without it every file
    loads through the slow reference loader: correct, but this module's tests fail, as they should."""
    assert yaml.__with_libyaml__, "PyYAML has no libyaml here: scenario files load at the slow loader's speed"


VALID = """\
settings:
  api_keys: [sk-fast]
models:
  acme/tiny:
    context_length: 8192
rules:
  - name: greeting
    match: &hello {last_user: {contains: hello}, model: "openai/*"}
    reply: {content: "Hi {{ request.model }}!"}

  - {name: inline, match: {last_user: {equals: ping}}, reply: {content: pong}}
  - <<: {priority: 1}
    name: merged
    match: *hello
    replies:
      - content: first
      - content: |
          second, on
          two lines
  - name: dated
    match: {last_user: {regex: "^when\\\\?$"}}
    reply: {content: 2024-05-01}
"""


def reference_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Load as before this change: the position-keeping loader for every source."""
    monkeypatch.setattr(loader, "load_yaml_fast", lambda text: None)


def exact_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources the position-keeping loader is run on, from now on."""
    calls: list[str] = []

    def spy(text: str, filename: str) -> tuple[object, positions.PositionMap]:
        calls.append(filename)
        return load_yaml(text, filename)

    monkeypatch.setattr(loader, "load_yaml", spy)
    return calls


def fingerprint(scenarios: ScenarioSet) -> list[Any]:
    """Everything a ScenarioSet holds, compiled parts by what they do."""
    request = ChatRequest.of({"model": "openai/gpt-4o", "messages": [{"role": "user", "content": "hello ping"}]}, {})
    rules = [
        (
            rule.name,
            rule.source,
            rule.line,
            rule.where,
            rule.order,
            rule.rank,
            rule.rule.model_dump(),
            [(p.key, p.expected, p.test(request), p.actual(request)) for p in rule.predicates],
            [(p.key, p.expected) for p in rule.expectations],
            [
                (
                    reply.spec.model_dump(),
                    *(_compiled(part) for part in (reply.content, reply.refusal, reply.reasoning)),
                )
                for reply in rule.replies
            ],
        )
        for rule in scenarios.rules
    ]
    rest = dataclasses.replace(scenarios, rules=())
    return [rules, rest]


def _compiled(part: object) -> object:
    if part is None or isinstance(part, str):
        return part
    try:
        return ("template", part.render({"request": {"model": "m"}}))  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001  # a template that needs more context: how it fails is what it does
        return ("template", type(exc).__name__, str(exc))


def both_ways(monkeypatch: pytest.MonkeyPatch, sources: list[tuple[str, str]]) -> tuple[ScenarioSet, ScenarioSet]:
    fast = build_set(sources)
    with monkeypatch.context() as patch:
        reference_only(patch)
        reference = build_set(sources)
    return fast, reference


def problems(build: Callable[[], object]) -> list[tuple[Any, ...]]:
    with pytest.raises(ScenarioError) as caught:
        build()
    return [dataclasses.astuple(problem) for problem in caught.value.problems]


# (a) A valid file takes the fast path and compiles to the same set.


def test_a_valid_file_never_runs_the_position_keeping_loader(monkeypatch: pytest.MonkeyPatch):
    calls = exact_calls(monkeypatch)
    scenarios = build_set([("valid.yaml", VALID)])
    assert calls == []
    assert [(rule.name, rule.line) for rule in scenarios.rules] == [
        ("merged", 12),
        ("greeting", 7),
        ("inline", 11),
        ("dated", 20),
    ]
    assert scenarios.rule("dated").rule.reply.content == "2024-05-01"  # dates stay strings


def test_a_valid_file_compiles_the_same_both_ways(monkeypatch: pytest.MonkeyPatch):
    fast, reference = both_ways(monkeypatch, [("valid.yaml", VALID)])
    assert fingerprint(fast) == fingerprint(reference)


def test_the_shipped_scenarios_load_fast_and_the_same_both_ways(monkeypatch: pytest.MonkeyPatch):
    sources = read_sources([SHIPPED])
    assert all(load_yaml_fast(text) is not None for _, text in sources)
    calls = exact_calls(monkeypatch)
    fast, reference = both_ways(monkeypatch, sources)
    assert calls == [name for name, _ in sources]  # only by `reference_only`
    assert fingerprint(fast) == fingerprint(reference)


def _many_rules(count: int) -> str:
    rules = []
    for i in range(count):
        if i % 3 == 0:
            rules.append(f"  - {{name: r{i}, match: {{last_user: {{equals: 'q{i}'}}}}, reply: {{content: 'a{i}'}}}}")
        elif i % 3 == 1:
            rules.append(f"  - name: r{i}\n    priority: {i % 5}\n    reply:\n      content: >-\n        folded {i}")
        else:
            rules.append(f"  # rule {i}\n  - &r{i}\n    name: r{i}\n    replies: [{{content: x}}, {{content: y}}]")
    return "rules:\n" + "\n".join(rules) + "\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_rule_lines_are_the_reference_ones(monkeypatch: pytest.MonkeyPatch, newline: str):
    text = _many_rules(60).replace("\n", newline)
    fast, reference = both_ways(monkeypatch, [("many.yaml", text)])
    assert [r.line for r in fast.rules] == [r.line for r in reference.rules]
    assert fingerprint(fast) == fingerprint(reference)


@pytest.mark.parametrize(
    "text",
    [
        "rules: [{name: a, reply: {content: x}},\n  {name: b, reply: {content: y}}]\n",
        "\ufeffrules:\n- name: a\n  reply: {content: x}\n",
        "--- # a document\nrules:\n  - !!map\n    name: a\n    reply: {content: x}\n...\n",
        "base: &r {name: a, reply: {content: x}}\nrules:\n  - *r\n  - name: b\n    reply: {content: y}\n",
        "rules:\n  - ? name\n    : a\n    reply: {content: x}\n",
        "rules:\n\n  -   name: a\n      reply: {content: x}\n  -\n    name: b\n    reply: {content: y}\n",
        'rules:\n  - name: a   # trailing comment\n    reply: {content: "long \\\n      line"}\n',
        "settings: {}\nrules:\n  - name: é😀\n    reply: {content: '日本語 ?'}\n",
    ],
)
def test_rule_positions_match_the_reference(text: str):
    fast = load_yaml_fast(text)
    assert fast is not None
    data, outline = fast
    reference_data, reference = load_yaml(text, "f.yaml")
    assert data == reference_data
    for i in range(len(data["rules"])):
        assert locate(outline, ("rules", i)) == locate(reference, ("rules", i))


def test_a_large_file_loads_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "big.yaml").write_text(_many_rules(1500), encoding="utf-8")
    calls = exact_calls(monkeypatch)
    assert len(load_paths([tmp_path]).rules) == 1500
    assert calls == []


# (b) A file with a problem is reported by the position-keeping loader, exactly as before.

INVALID = [
    "rules:\n  - name: a\n    match: {last_user: {contians: x}}\n    reply: {content: x}\n",  # unknown key
    "rules:\n  - name: a\n    reply: {content: '{{ oops'}\n",  # template syntax
    "rules:\n  - name: a\n    replies:\n      - content: fine\n      - refusal: '{% if %}'\n",
    "rules:\n  - name: a\n    reply: {content: x}\n  - name: a\n    reply: {content: y}\n",  # names
    "rules:\n  - name: a\n     reply: {content: x}\n",  # syntax
    "- just\n- a list\n",
    "rules: !!python/object/apply:os.system ['true']\n",
    "rules: [{name: a, reply: {content: x}}]\nrules: []\n",  # duplicate key
]


@pytest.mark.parametrize("text", INVALID)
def test_problems_are_the_reference_ones(monkeypatch: pytest.MonkeyPatch, text: str):
    found = problems(lambda: build_set([("bad.yaml", text)]))
    with monkeypatch.context() as patch:
        reference_only(patch)
        assert found == problems(lambda: build_set([("bad.yaml", text)]))
    assert all(line is not None for _, line, *_ in found)


def test_a_template_error_is_located_by_a_second_parse(monkeypatch: pytest.MonkeyPatch):
    text = "rules:\n  - name: a\n    reply:\n      content: ok\n  - name: b\n    reply:\n      content: '{{ x'\n"
    calls = exact_calls(monkeypatch)
    [problem] = problems(lambda: build_set([("t.yaml", text)]))
    assert calls == ["t.yaml"]
    assert problem[:4] == ("t.yaml", 7, 16, "rules[1].reply.content")
    assert problem[5].endswith(">  7 |       content: '{{ x'\n     |                ^")


def test_a_duplicate_rule_name_gets_its_line_without_a_second_parse(monkeypatch: pytest.MonkeyPatch):
    text = "rules:\n  - name: a\n    reply: {content: x}\n\n  - name: a\n    reply: {content: y}\n"
    calls = exact_calls(monkeypatch)
    [problem] = problems(lambda: build_set([("d.yaml", text)]))
    assert calls == []
    assert problem[:4] == ("d.yaml", 5, None, "rules[1].name")


# (c) What libyaml reads differently, or would not catch, is left to the reference loader.


def _same_as_reference(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    try:
        expected: object = ("loaded", fingerprint(build_set([("f.yaml", text)])))
    except ScenarioError as exc:
        expected = ("refused", [dataclasses.astuple(p) for p in exc.problems])
    with monkeypatch.context() as patch:
        reference_only(patch)
        try:
            got: object = ("loaded", fingerprint(build_set([("f.yaml", text)])))
        except ScenarioError as exc:
            got = ("refused", [dataclasses.astuple(p) for p in exc.problems])
    assert got == expected


LEFT_TO_THE_REFERENCE = {
    "duplicate top-level key": "rules: []\nsettings: {}\nrules: []\n",
    "duplicate key in a rule": "rules:\n  - name: a\n    reply: {content: x}\n    reply: {content: y}\n",
    "duplicate key in a flow mapping": "rules: [{name: a, name: b, reply: {content: x}}]\n",
    "duplicate key equal once read": "rules: []\nsettings: {1: a, 0x1: b}\n",
    "tab between flow items": "rules: [{name: a,\treply: {content: x}}]\n",
    "trailing tab": "rules:\n  - name: a\t\n    reply: {content: x}\n",
    "question mark in a flow plain scalar": "rules: [{name: a, reply: {content: How are you?}}]\n",
    "flow indicator after a tag": "rules: [{name: !!str, reply: {content: x}}]\n",
    "explicit empty key in a flow sequence": "rules: [?,,]\n",
    "single-pair mapping in a flow sequence": "rules: [name: a]\n",
    "empty scalar tagged !": "rules:\n  - name: a\n    reply: {content: !}\n",
    "comment glued to a block scalar header": "rules:\n  - name: a\n    reply:\n      content: |#\n        x\n",
    "byte order mark past the start": "rules:\n  - name: a\n    reply: {content: x}\n\ufeff",
    "NEL line break": "rules:\n  - name: a\x85  - name: b\n    reply: {content: x}\n",
    "unsafe tag": "rules: !!python/name:os.system\n",
    "alias to nothing": "rules: [*nothing]\n",
    "multiple documents": "rules: []\n---\nrules: []\n",
    "a boolean its tag cannot read": "rules:\n  - name: a\n    reply: {content: x}\n    stream: !!bool tre\n",
    "an integer its tag cannot read": "rules:\n  - name: a\n    priority: !!int x\n    reply: {content: x}\n",
    "a number its tag cannot read": "rules:\n  - name: a\n    reply: {content: x, delay_ms: !!float abc}\n",
    "a timestamp its tag cannot read": "rules:\n  - name: a\n    reply: {content: !!timestamp nope}\n",
    "an empty integer": "rules:\n  - name: a\n    priority: !!int\n    reply: {content: x}\n",
    "bad base64": "rules:\n  - name: a\n    reply: {content: !!binary abc}\n",
    "nesting past the limit": "rules:\n  - name: a\n    reply:\n      tool_calls:\n        - name: f\n"
    "          arguments: {deep: " + "[" * 300 + "]" * 300 + "}\n",
    "nesting past the limit through aliases": "rules:\n  - name: a\n    reply:\n      tool_calls:\n"
    "        - name: f\n          arguments:\n            l0: &l0 [x]\n"
    + "".join(f"            l{i}: &l{i} [*l{i - 1}]\n" for i in range(1, 99)),
    "recursive alias": "rules:\n  - name: a\n    reply:\n      tool_calls:\n        - name: f\n"
    "          arguments: &x {self: *x}\n",
    "recursive merge": "rules:\n  - &r\n    <<: *r\n    name: a\n    reply: {content: x}\n",
    "an alias bomb": "rules:\n  - name: a\n    reply:\n      tool_calls:\n        - name: f\n          arguments:\n"
    "            a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"            {c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in itertools.pairwise("abcdefg")),
    "an integer beyond 64 bits": "rules:\n  - name: a\n    priority: 9223372036854775808\n    reply: {content: x}\n",
    "a lone surrogate": 'rules:\n  - name: a\n    reply: {content: "\\ud800"}\n',
    "an escaped surrogate pair": 'rules:\n  - name: a\n    reply: {content: "\\ud83d\\ude00"}\n',
}


@pytest.mark.parametrize("text", LEFT_TO_THE_REFERENCE.values(), ids=LEFT_TO_THE_REFERENCE.keys())
def test_what_libyaml_cannot_vouch_for_is_left_to_the_reference(monkeypatch: pytest.MonkeyPatch, text: str):
    assert load_yaml_fast(text) is None
    _same_as_reference(monkeypatch, text)


@pytest.mark.parametrize(
    ("name", "where", "reason"),
    [
        ("a boolean its tag cannot read", (4, 13), "cannot read '!!bool tre': not a boolean"),
        ("an integer its tag cannot read", (3, 15), "cannot read '!!int x': not an integer"),
        ("a number its tag cannot read", (3, 35), "cannot read '!!float abc': not a number"),
        ("a timestamp its tag cannot read", (3, 22), "cannot read '!!timestamp nope': not a timestamp"),
        ("an empty integer", (3, 15), "cannot read '!!int': not an integer"),
        ("bad base64", (3, 22), "failed to decode base64 data: Incorrect padding"),
        ("nesting past the limit", (6, 29 + 100 - 7), "nesting deeper than 100 levels"),  # `arguments` is at 7
        ("nesting past the limit through aliases", (100, 24), "nesting deeper than 100 levels, through alias *l92"),
        ("recursive alias", (6, 32), "recursive alias *x: the value would contain itself"),
        ("recursive merge", (3, 9), "recursive alias *r: the value would contain itself"),
    ],
)
def test_what_the_fast_path_leaves_is_reported_where_it_stands(
    tmp_path: Path, name: str, where: tuple[int, int], reason: str
):
    path = tmp_path / "bad.yaml"
    path.write_text(LEFT_TO_THE_REFERENCE[name], encoding="utf-8")
    [problem] = problems(lambda: load_paths([path]))
    assert problem[:5] == (str(path), *where, "", reason)


def test_aliases_within_the_limit_stay_on_the_fast_path():
    chain = "".join(f"  l{i}: &l{i} [*l{i - 1}]\n" for i in range(1, 30))
    text = "settings: {}\nx:\n  l0: &l0 [x]\n" + chain + "rules:\n  - &r {name: a, reply: {content: x}}\n  - *r\n"
    fast = load_yaml_fast(text)
    assert fast is not None
    assert fast[0] == load_yaml(text, "f.yaml")[0]


def test_duplicate_keys_are_still_refused_where_they_stand(tmp_path: Path):
    path = tmp_path / "dup.yaml"
    path.write_text(LEFT_TO_THE_REFERENCE["duplicate key in a flow mapping"], encoding="utf-8")
    [problem] = problems(lambda: load_paths([path]))
    assert problem[1:5] == (1, 19, "", "duplicate key 'name'")


def test_an_own_key_over_a_merged_one_is_no_duplicate():
    data, _ = load_yaml_fast("a: &a {k: 1}\nb:\n  <<: *a\n  k: 2\n")  # type: ignore[misc]
    assert data == {"a": {"k": 1}, "b": {"k": 2}}


def test_libyaml_s_composer_is_not_used_on_deep_nesting():
    # libyaml's composer recurses in C and overflows the stack (a crash) some 10,000 levels down.
    deep = "[" * 200_000 + "]" * 200_000
    assert load_yaml_fast(deep) is None
    assert load_yaml_fast("a: " + "[" * positions._FAST_DEPTH + "]" * positions._FAST_DEPTH) is None
    assert load_yaml_fast("a: " + "[" * 10 + "]" * 10) is not None


_ATOMS = [
    "a",
    "x y",
    "a?b",
    "a:b",
    "a #c",
    "-a",
    "!!str a",
    "!t a",
    "! a",
    "&a a",
    "*a",
    "'q?'",
    '"d\\t"',
    "~",
    "",
    "1",
    "0x1F",
    "1e3",
    "2001-12-14",
    "yes",
    "? k",
    "é😀",
    "a,b",
    "!!str,",
    "<<: *a",
    "|#",
    "\t",
    "\ufeff",
]
_BREAKS = ["\n", "\n  ", "\n    ", "\r\n", "\r", "\x85", "\u2028"]


def _generated(rng: random.Random) -> str:
    def flow(depth: int) -> str:
        if depth > 2 or rng.random() < 0.4:
            return rng.choice(_ATOMS)
        if rng.random() < 0.5:
            return "[" + rng.choice([", ", ",", ",\n  "]).join(flow(depth + 1) for _ in range(rng.randint(0, 3))) + "]"
        pairs = (
            flow(depth + 1) + rng.choice([": ", ":", " : ", ""]) + flow(depth + 1) for _ in range(rng.randint(0, 3))
        )
        return "{" + ", ".join(pairs) + "}"

    def block() -> str:
        lines = [
            " " * rng.choice([0, 2, 4])
            + "".join(
                rng.choice([*_ATOMS, "- ", ": ", "#", "|", ">-", "? ", flow(1)]) for _ in range(rng.randint(1, 4))
            )
            for _ in range(rng.randint(1, 6))
        ]
        return rng.choice(_BREAKS[:5]).join(lines)

    text = rng.choice(["rules:\n  - ", "rules: ", "&a a: 1\nrules:\n- name: a\n  ", ""]) + (
        flow(0) if rng.random() < 0.5 else block()
    )
    for _ in range(rng.randint(0, 2)):  # a few random edits
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice([*_ATOMS, *_BREAKS, " ", ",", "]", "}"]) + text[at + rng.randint(0, 2) :]
    return text


def test_libyaml_and_the_reference_agree_on_generated_documents():
    rng = random.Random(20240501)
    taken = 0
    for _ in range(600):
        text = _generated(rng)
        fast = load_yaml_fast(text)
        if fast is None:
            continue
        taken += 1
        try:
            reference_data, reference = load_yaml(text, "g.yaml")
        except (ScenarioError, ValueError, KeyError, TypeError, IndexError) as exc:
            pytest.fail(f"the fast path took {text!r}, which the reference refuses: {exc}")
        data, outline = fast
        assert repr(data) == repr(reference_data), text
        rules = data.get("rules") if isinstance(data, dict) else None
        for i in range(len(rules) if isinstance(rules, list) else 0):
            assert locate(outline, ("rules", i)) == locate(reference, ("rules", i)), text
    assert taken > 100  # the generator exercises the fast path, not only the way around it
