"""What a failing run shows: the unused rules of `assert_all_rules_used`, the failing test's journal
section, and the end-of-run `--zenmux-report`."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, SCENARIO, rule_line, write_example

FAILING = AGENT + '''

@pytest.mark.zenmux(scenarios=["tests/scenarios/weather.yaml"])
def test_uses_only_the_first_rule(zenmux):
    ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    zenmux.assert_all_rules_used()


def test_expects_a_pirate(zenmux):
    zenmux.add_rule("pirate-talk", match={"system": {"contains": "pirate"}}, reply={"content": "arr"})
    reply = ask(zenmux.openai_client(), "where is the treasure?")
    assert reply.choices[0].message.content == "arr"
'''


def test_failures_show_unused_rules_journal_and_report(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_failing.py": FAILING})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--zenmux-report")
    result.assert_outcomes(passed=1, failed=2)
    answer_at = f"{pytester.path / SCENARIO}:{rule_line('weather-answer')}"
    result.stdout.fnmatch_lines([
        # assert_all_rules_used names the rule that never answered, with file:line
        "E*AssertionError: 1 zenmux rule(s) loaded by this test never matched:",
        f"E*  weather-answer ({answer_at})",
    ])
    result.stdout.fnmatch_lines([
        # the failing test's journal: method path status rule, last user message, near misses
        "*_ test_expects_a_pirate _*",
        "*- zenmux journal -*",
        "session key-*: 1 request(s)",
        "#* POST /api/v1/chat/completions 200 rule=-",
        "    last user: 'where is the treasure?'",
        "    near miss: pirate-talk (add_rule at *test_failing.py:*): system wanted *pirate*, got *",
    ])
    result.stdout.fnmatch_lines([
        # the run's summary: rules never matched (the passing example used both of its rules) ...
        "*= zenmux report =*",
        "rules never matched: 2",
        f"  weather-answer ({answer_at}) loaded by tests/test_failing.py::test_uses_only_the_first_rule",
        "  pirate-talk (add_rule at *) loaded by tests/test_failing.py::test_expects_a_pirate",
        # ... and requests no rule matched, with their near misses
        "requests no rule matched: 1",
        "  tests/test_failing.py::test_expects_a_pirate #* openai/gpt-5 status=200 last user: 'where is the treasure?'",
        "    near miss: pirate-talk (add_rule at *test_failing.py:*): system wanted *",
    ])
