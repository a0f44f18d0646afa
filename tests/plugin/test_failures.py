"""What a failing run shows: the unused rules of `assert_all_rules_used`, the failing test's journal
section, and the end-of-run `--zenmux-report`."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, SCENARIO, rule_line, write_example

FAILING = (
    AGENT
    + """

@pytest.mark.zenmux(scenarios=["tests/scenarios/weather.yaml"])
def test_uses_only_the_first_rule(zenmux):
    ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    zenmux.assert_all_rules_used()


def test_expects_a_pirate(zenmux):
    zenmux.add_rule("pirate-talk", match={"system": {"contains": "pirate"}}, reply={"content": "arr"})
    reply = ask(zenmux.openai_client(), "where is the treasure?")
    assert reply.choices[0].message.content == "arr"
"""
)


def test_failures_show_unused_rules_journal_and_report(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_failing.py": FAILING})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--zenmux-report")
    result.assert_outcomes(passed=1, failed=2)
    answer_at = f"{SCENARIO}:{rule_line('weather-answer')}"  # relative to the folder pytest runs in
    result.stdout.fnmatch_lines(
        [
            # assert_all_rules_used names the rule that never answered, with file:line
            "E*AssertionError: 1 zenmux rule(s) loaded by this test never matched:",
            f"E*  weather-answer ({answer_at})",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            # the failing test's journal: method path status rule, last user message, near misses
            "*_ test_expects_a_pirate _*",
            "*- zenmux journal -*",
            "session key-*: 1 request(s)",
            "#* POST /api/v1/chat/completions 200 rule=-",
            "    last user: 'where is the treasure?'",
            "    near miss: pirate-talk (add_rule at *test_failing.py:*): system wanted *pirate*, got *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            # the run's summary: rules no test matched (weather-answer, unused by the first test, answered the
            # passing example, which loaded the same file: it is one rule, and it was used) ...
            "*= zenmux report =*",
            "rules never matched: 1",
            "  pirate-talk (add_rule at *) loaded by tests/test_failing.py::test_expects_a_pirate",
            # ... and requests no rule matched, with their near misses
            "requests no rule matched: 1",
            "  tests/test_failing.py::test_expects_a_pirate #* openai/gpt-5 status=200 last user: 'where is the treasure?'",
            "    near miss: pirate-talk (add_rule at *test_failing.py:*): system wanted *",
        ]
    )


MODULE_MARKER = (
    AGENT
    + """

pytestmark = pytest.mark.zenmux(scenarios=["tests/scenarios/weather.yaml"])


def test_one(zenmux):
    ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])


def test_two(zenmux):
    ask(zenmux.openai_client(), "nothing to do with weather")


def test_three(zenmux):
    ask(zenmux.openai_client(), "nor this")
"""
)


def test_the_report_lists_a_rule_a_module_marker_loads_once_not_once_per_test(pytester: pytest.Pytester) -> None:
    # Issue 18: every test of the module loads the marker's scenario; a rule none of them used was listed
    # once per test ("rules never matched: 6" for the 2 unused rules of 3 tests).
    write_example(pytester, **{"tests/test_module.py": MODULE_MARKER})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--zenmux-report", "tests/test_module.py")
    result.assert_outcomes(passed=3)
    answer_at = f"{SCENARIO}:{rule_line('weather-answer')}"  # relative to the folder pytest runs in
    result.stdout.fnmatch_lines(
        [
            "*= zenmux report =*",
            "rules never matched: 1",  # weather-call-tool answered test_one; weather-answer answered no test
            f"  weather-answer ({answer_at}) loaded by 3 tests (tests/test_module.py::test_one, ...)",
            "requests no rule matched: 2",
        ]
    )
    report = result.stdout.str().split("rules never matched:")[1].split("requests no rule matched")[0]
    assert report.count("weather-answer") == 1
