"""Bad scenario files fail at load, every problem located: file, line, dotted path and reason."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from tests.support.shipped import load_paths
from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems_of(*paths: Path) -> list[ScenarioProblem]:
    with pytest.raises(ScenarioError) as caught:
        load_paths(list(paths))
    assert caught.value.problems, "a ScenarioError must list its problems"
    return caught.value.problems


def only_problem(path: Path) -> ScenarioProblem:
    problems = problems_of(path)
    assert len(problems) == 1, [str(p) for p in problems]
    assert problems[0].file == str(path)
    return problems[0]


def test_yaml_syntax_error_is_located(tmp_path: Path):
    path = write(
        tmp_path,
        "syntax.yaml",
        """\
        rules:
          - name: a
             reply: {content: x}
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.column) == (3, 11)
    assert "if this line is a key, line it up with the keys above" in problem.reason
    assert ">  3 |      reply: {content: x}" in problem.snippet


def test_unclosed_flow_mapping_names_where_it_opened(tmp_path: Path):
    path = write(
        tmp_path,
        "flow.yaml",
        """\
        rules:
          - name: a
            reply: {content: 'x'
        """,
    )
    problem = only_problem(path)
    assert problem.line == 4
    assert "line 3" in problem.reason


def test_a_tab_is_located(tmp_path: Path):
    path = tmp_path / "tab.yaml"
    path.write_text("rules:\n\t- name: a\n", encoding="utf-8")
    problem = only_problem(path)
    assert (problem.line, problem.column) == (2, 1)
    assert problem.reason == "a tab character: YAML indents with spaces only; replace the tab with spaces"


def test_unknown_key_is_located_at_the_key_with_a_suggestion(tmp_path: Path):
    path = write(
        tmp_path,
        "typo.yaml",
        """\
        rules:
          - name: a
            mtach: {model: "openai/*"}
            reply: {content: hi}
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.column, problem.path) == (3, 5, "rules[0].mtach")
    assert problem.reason == "unknown key 'mtach'; did you mean 'match'?"
    assert str(problem).startswith(f"{path}:3:5: unknown key 'mtach'")


def test_unknown_key_deep_in_a_match(tmp_path: Path):
    path = write(
        tmp_path,
        "deep-typo.yaml",
        """\
        rules:
          - name: a
            match:
              last_user: {contians: hello}
            reply: {content: hi}
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (4, "rules[0].match.last_user.contians")
    assert "did you mean 'contains'?" in problem.reason


def test_wrong_type_deep_inside_a_reply_sequence(tmp_path: Path):
    path = write(
        tmp_path,
        "deep.yaml",
        """\
        rules:
          - name: a
            replies:
              - {content: one}
              - content: two
                finish_reason: done
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (6, "rules[0].replies[1].finish_reason")
    assert "'done'" in problem.reason and "'stop'" in problem.reason
    assert ">  6 |         finish_reason: done" in problem.snippet


def test_invalid_regex(tmp_path: Path):
    path = write(
        tmp_path,
        "regex.yaml",
        """\
        rules:
          - name: a
            match:
              last_user: {regex: "(unclosed"}
            reply: {content: hi}
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (4, "rules[0].match.last_user.regex")
    assert problem.reason.startswith("invalid regular expression")


def test_template_syntax_error(tmp_path: Path):
    path = write(
        tmp_path,
        "template.yaml",
        """\
        rules:
          - name: fine
            reply: {content: "{{ request.model }}"}
          - name: broken
            replies:
              - content: ok
              - content: "{{ request.last_user "
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (7, "rules[1].replies[1].content")
    assert problem.reason.startswith("template error:")


def test_unclosed_template_block(tmp_path: Path):
    path = write(
        tmp_path,
        "block.yaml",
        """\
        rules:
          - name: a
            reply:
              refusal: "{% if request.turn %}later"
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (4, "rules[0].reply.refusal")
    assert "template error" in problem.reason


def test_duplicate_rule_names_in_one_file_point_at_the_second(tmp_path: Path):
    path = write(
        tmp_path,
        "dupes.yaml",
        """\
        rules:
          - name: same
            reply: {content: one}
          - name: same
            reply: {content: two}
        """,
    )
    problem = only_problem(path)
    assert "'same'" in problem.reason
    assert problem.line == 4, str(problem)


def test_duplicate_rule_names_across_two_files(tmp_path: Path):
    first = write(
        tmp_path,
        "a.yaml",
        """\
        rules:
          - name: shared
            reply: {content: one}
        """,
    )
    second = write(
        tmp_path,
        "b.yaml",
        """\
        rules:
          - name: other
            reply: {content: two}
          - name: shared
            reply: {content: three}
        """,
    )
    (problem,) = problems_of(tmp_path)
    assert (problem.file, problem.line, problem.path) == (str(second), 4, "rules[1].name")
    assert "'shared'" in problem.reason and f"{first}:2" in problem.reason


@pytest.mark.parametrize(
    "rule",
    [
        "- name: both\n    reply: {content: one}\n    replies: [{content: two}]",
        "- name: neither\n    match: {model: 'openai/*'}",
    ],
)
def test_a_rule_needs_exactly_one_of_reply_or_replies(tmp_path: Path, rule: str):
    path = tmp_path / "reply.yaml"
    path.write_text(f"rules:\n  - name: fine\n    reply: {{content: ok}}\n  {rule}\n", encoding="utf-8")
    problem = only_problem(path)
    assert (problem.line, problem.path) == (4, "rules[1]")
    assert problem.reason == "a rule needs exactly one of 'reply' or 'replies'"


def test_empty_replies_is_refused(tmp_path: Path):
    path = write(
        tmp_path,
        "empty.yaml",
        """\
        rules:
          - name: a
            replies: []
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.path) == (3, "rules[0].replies")


def test_duplicate_yaml_keys(tmp_path: Path):
    path = write(
        tmp_path,
        "keys.yaml",
        """\
        rules:
          - name: a
            reply: {content: one}
            reply: {content: two}
        """,
    )
    problem = only_problem(path)
    assert (problem.line, problem.column) == (4, 5)
    assert problem.reason == "duplicate key 'reply'"


def test_a_missing_path(tmp_path: Path):
    missing = tmp_path / "nowhere.yaml"
    problem = only_problem(missing)
    assert problem.line is None
    assert problem.reason == "no such file or directory"


def test_a_file_that_is_not_a_mapping(tmp_path: Path):
    problem = only_problem(write(tmp_path, "list.yaml", "- a\n- b\n"))
    assert problem.line == 1
    assert "mapping" in problem.reason


def test_python_tags_are_refused_and_never_run(tmp_path: Path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.yaml"
    path.write_text(f"rules: !!python/object/apply:os.system ['touch {marker}']\n", encoding="utf-8")
    problem = only_problem(path)
    assert problem.line == 1
    assert "python/object/apply:os.system" in problem.reason
    assert not marker.exists()


def test_every_problem_of_every_file_is_reported(tmp_path: Path):
    one = write(
        tmp_path,
        "one.yaml",
        """\
        rules:
          - name: a
            mtach: {}
            reply: {content: hi}
          - name: b
            match: {last_user: {regex: "["}}
            reply: {content: hi}
        """,
    )
    two = write(
        tmp_path,
        "two.yaml",
        """\
        rules:
          - name: c
            reply: {content: "{{ oops "}
        """,
    )
    found = {(p.file, p.line, p.path) for p in problems_of(tmp_path)}
    assert found == {
        (str(one), 3, "rules[0].mtach"),
        (str(one), 6, "rules[1].match.last_user.regex"),
        (str(two), 3, "rules[0].reply.content"),
    }


def test_render_shows_each_problem_with_its_snippet(tmp_path: Path):
    path = write(
        tmp_path,
        "typo.yaml",
        """\
        rules:
          - name: a
            mtach: {}
            reply: {content: hi}
        """,
    )
    with pytest.raises(ScenarioError) as caught:
        load_paths([path])
    rendered = caught.value.render()
    assert f"{path}:3:5: unknown key 'mtach'" in rendered
    assert ">  3 |     mtach: {}" in rendered
    assert "     |     ^" in rendered


def test_a_bad_file_does_not_hide_behind_a_good_one(tmp_path: Path):
    write(tmp_path, "good.yaml", "rules:\n  - name: g\n    reply: {content: ok}\n")
    bad = write(tmp_path, "bad.yaml", "rules:\n  - name: b\n    reply: {content: ok, finish_reason: maybe}\n")
    (problem,) = problems_of(tmp_path)
    assert (problem.file, problem.line) == (str(bad), 3)


def test_an_empty_file_loads_with_no_rules(tmp_path: Path):
    loaded = load_paths([write(tmp_path, "empty.yaml", "# nothing yet\n")])
    assert loaded.rules == ()


def test_a_match_that_could_never_hold_is_refused(tmp_path: Path):
    path = write(
        tmp_path,
        "never.yaml",
        """\
        rules:
          - name: empty-contains
            match: {last_user: {contains: []}}
            reply: {content: x}
          - name: inverted-turns
            match: {turn: {min: 5, max: 2}}
            reply: {content: y}
        """,
    )
    problems = problems_of(path)
    by_path = {p.path: p for p in problems}
    assert by_path["rules[0].match.last_user.contains"].line == 3
    turn = next(p for p in problems if p.path.startswith("rules[1].match.turn"))
    assert turn.line == 6 and "min (5) is above max (2)" in turn.reason


BOMB_RULE = """\
rules:
  - name: bomb
    reply:
      tool_calls:
        - name: f
          arguments:
"""


def _bomb(levels: int) -> str:
    """The billion laughs as a tool call's arguments: each level's anchor repeats the one before ten
    times (10**levels leaves)."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for before, name in itertools.pairwise("abcdefghij"[:levels]):
        lines.append(f"{name}: &{name} [{', '.join([f'*{before}'] * 10)}]")
    return BOMB_RULE + "".join(f"            {line}\n" for line in lines)


def test_an_alias_bomb_is_refused_where_it_crosses_the_limit(tmp_path: Path):
    """A 10-million-leaf bomb in some 600 bytes: refused at the alias that takes the file past the limit
    on values aliases may repeat, before anything downstream expands it."""
    text = _bomb(7)
    assert len(text) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(text, encoding="utf-8")
    problem = only_problem(path)
    # sizes with their own node: a 11, b 111, c 1,111, d 11,111; e's aliases of d cross 100,000 at the 8th
    assert (problem.line, problem.column) == (11, 12 + len("e: &e [") + 1 + 7 * len("*d, "))
    assert problem.reason == "aliases repeat more than 100,000 values (the file expands past that), at alias *d"
    assert "e: &e [*d" in problem.snippet


def test_aliases_under_the_limit_still_load(tmp_path: Path):
    path = tmp_path / "anchors.yaml"
    path.write_text(_bomb(4), encoding="utf-8")
    assert [rule.name for rule in load_paths([path]).rules] == ["bomb"]
