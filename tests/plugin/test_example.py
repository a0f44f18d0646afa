"""The plugin guide's example (docs/guide/pytest-plugin.md) runs as written, alone and under pytest-xdist."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, write_example

ISOLATION = (
    AGENT
    + """

@pytest.mark.parametrize("word", ["a", "b", "c", "d"])
def test_each_test_starts_its_own_sequence(zenmux, word):
    zenmux.load(SEQUENCE)
    assert ask(zenmux.openai_client(), f"count {word}").choices[0].message.content == "one"
    assert [e.body["messages"][0]["content"] for e in zenmux.requests] == [f"count {word}"]


def test_leaves_a_rule_unused(zenmux):
    zenmux.add_rule("never-asked", match={"last_user": "nobody says this"}, reply={"content": "x"})
    assert zenmux.unused_rules()[0].name == "never-asked"
"""
)


def test_the_readme_example_passes(pytester: pytest.Pytester) -> None:
    write_example(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_the_example_and_isolation_pass_under_xdist_with_the_report(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_isolation.py": ISOLATION})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "xdist", "-n", "2", "--zenmux-report")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    assert "2 workers" in out
    # the report was gathered from the workers: only the one unused rule, with the test that loaded it
    result.stdout.fnmatch_lines(
        [
            "*zenmux report*",
            "rules never matched: 1",
            "  never-asked (add_rule at *test_isolation.py:*) loaded by "
            "tests/test_isolation.py::test_leaves_a_rule_unused",
            "requests no rule matched: 0",
        ]
    )
