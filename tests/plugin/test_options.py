"""`--zenmux-strict` and `--zenmux-scenarios`: the session server's settings, and a marker that
asks for other ones getting a dedicated server over the same scenario files."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, SCENARIO, write_example

STRICT = (
    AGENT
    + """

def test_scenarios_from_the_command_line_answer(zenmux):
    reply = ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    assert reply.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert zenmux.requests[-1].rule == "weather-call-tool"


def test_an_unmatched_request_fails_in_strict_mode(zenmux):
    assert not zenmux.dedicated
    with pytest.raises(openai.NotFoundError) as info:
        ask(zenmux.openai_client(), "nothing matches this")
    assert info.value.type == "emulator_no_match"
    [entry] = zenmux.unmatched()
    assert (entry.status, entry.error_type) == (404, "emulator_no_match")
    assert entry.near_misses[0]["rule"].startswith("weather-")


@pytest.mark.zenmux(strict=False)
def test_a_lenient_marker_gets_its_own_server_over_the_same_files(zenmux):
    assert zenmux.dedicated
    assert ask(zenmux.openai_client(), "nothing matches this").choices[0].message.content
    reply = ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    assert zenmux.requests[-1].rule == "weather-call-tool"
"""
)


def test_strict_and_scenarios_options(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_strict.py": STRICT})
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "tests/test_strict.py", "-v", "--zenmux-strict", f"--zenmux-scenarios={SCENARIO}"
    )
    result.assert_outcomes(passed=3)
