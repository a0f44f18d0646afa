"""The plugin says why first (issue 30): in a user's project, a strict miss's report starts with what missed, the
nearest rules at their scenario file and line and the fields they wanted, above the SDK's traceback (also under
xdist); an unused rule of YAML text names the `load` call and the line; the handle has a client for every face."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, SCENARIO, rule_line, write_example

STRICT_MISS = (
    AGENT
    + """

@pytest.mark.zenmux(scenarios=["tests/scenarios/weather.yaml"], strict=True)
def test_asks_without_the_tool(zenmux):
    ask(zenmux.openai_client(), "Weather in Paris?")


def test_an_unused_rule_of_yaml_text(zenmux):
    zenmux.load("rules:\\n  - name: first\\n    reply: {content: one}\\n  - name: never\\n    match: {last_user: never}\\n"
                "    reply: {content: two}\\n")
    ask(zenmux.openai_client(), "hello")
    zenmux.assert_all_rules_used()


def test_a_client_for_every_face(zenmux):
    zenmux.add_rule("hi", match={"last_user": "hello"}, reply={"content": "hi there"})
    message = zenmux.anthropic_client().messages.create(
        model="openai/gpt-5", max_tokens=64, messages=[{"role": "user", "content": "hello"}])
    assert message.content[0].text == "hi there"
    assert zenmux.responses_client().responses.create(model="openai/gpt-5", input="hello").output_text == "hi there"
    assert [entry.api for entry in zenmux.requests] == ["anthropic", "responses"]
"""
)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["alone", "xdist"])
def test_a_strict_miss_says_why_above_the_traceback(pytester: pytest.Pytester, xdist: list[str]) -> None:
    write_example(pytester, **{"tests/test_miss.py": STRICT_MISS})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/test_miss.py", *xdist)
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.lines
    scenario = SCENARIO  # relative to the folder pytest runs in
    summary = [
        "zenmux: 1 request(s) no rule matched:",
        "  #* POST /api/v1/chat/completions answered 404 emulator_no_match, last user: 'Weather in Paris?'",
        f"    near miss: weather-call-tool ({scenario}:{rule_line('weather-call-tool')}): tools wanted *, got *",
        f"    near miss: weather-answer ({scenario}:{rule_line('weather-answer')}): tool_result wanted *",
    ]
    result.stdout.fnmatch_lines(["*_ test_asks_without_the_tool _*", *summary])
    start = next(i for i, line in enumerate(out) if "_ test_asks_without_the_tool _" in line)
    ours = next(i for i in range(start, len(out)) if out[i].startswith("zenmux: 1 request(s) no rule matched"))
    sdk = next(i for i in range(start, len(out)) if "openai.NotFoundError" in out[i])
    assert ours < sdk  # the emulator's why before the SDK's traceback
    assert not any("api:" in line for line in out[ours : ours + len(summary)])
    # the SDK's exception text names the rules at their file and line too (issue 42), not the plugin's scenario
    error = next(line for line in out[sdk:] if line.startswith("E") and "No rule matched" in line)
    assert "api:test_" not in error and f"{scenario}:{rule_line('weather-call-tool')}" in error, error
    result.stdout.fnmatch_lines(
        [
            "*_ test_an_unused_rule_of_yaml_text _*",
            "E*AssertionError: 1 zenmux rule(s) loaded by this test never matched:",
            "E*  never (load at *test_miss.py:*, line 4 of its YAML)",
        ]
    )
    assert "zenmux/pytest_plugin" not in result.stdout.str()  # no frame of the plugin in the traceback
    assert "zenmux = <zenmux handle: session key-" in result.stdout.str()  # not the handle's every field
