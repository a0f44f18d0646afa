"""The `zenmux` handle in passing tests: requests, isolation, load/add_rule, clear, clock, unmatched
requests, module and per-test markers, async clients. One pytester run for all of them."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, SCENARIO, rule_line, write_example

BEHAVIOURS = (
    AGENT
    + """

@pytest.mark.parametrize("word", ["first", "second"])
def test_each_test_sees_only_its_own_requests_and_sequence(zenmux, word):
    assert not zenmux.dedicated
    zenmux.load(SEQUENCE)
    client = zenmux.openai_client()
    assert ask(client, f"count {word}").choices[0].message.content == "one"
    assert ask(client, f"count {word} again").choices[0].message.content == "two"
    assert [e.body["messages"][0]["content"] for e in zenmux.requests] == [f"count {word}", f"count {word} again"]
    assert zenmux.api_key.startswith("sk-zenmux-test-")


def test_requests_show_what_the_client_sent(zenmux):
    assert zenmux.add_rule("greet", match={"last_user": {"contains": "hello"}},
                           reply={"content": "hi {{ request.last_user }}"}) == "greet"
    client = zenmux.openai_client(default_headers={"X-Trace": "abc"})
    reply = ask(client, "hello there", metadata={"suite": "plugin"}, temperature=0.5)
    assert reply.choices[0].message.content == "hi hello there"
    [entry] = zenmux.requests
    assert (entry.method, entry.path, entry.status, entry.rule) == ("POST", "/api/v1/chat/completions", 200, "greet")
    assert entry.body["metadata"] == {"suite": "plugin"} and entry.body["temperature"] == 0.5
    headers = {k.lower(): v for k, v in entry.headers.items()}
    assert headers["x-trace"] == "abc" and zenmux.api_key not in headers["authorization"]
    assert entry.session == zenmux.session
    zenmux.assert_all_rules_used()


def test_load_yaml_text_unmatched_and_clear(zenmux):
    assert zenmux.load("rules:\\n  - name: pirates\\n    match: {system: pirate}\\n    reply: {content: arr}\\n") == ["pirates"]
    client = zenmux.openai_client()
    assert ask(client, "plain question").choices[0].message.content != "arr"
    [entry] = zenmux.unmatched()
    assert entry.rule is None and entry.near_misses[0]["rule"] == "pirates"
    assert entry.near_misses[0]["misses"][0]["key"] == "system"
    zenmux.clear()
    assert zenmux.requests == [] and zenmux.unmatched() == []


def test_clear_restarts_the_reply_sequence(zenmux):
    zenmux.add_rule("counter", match={"last_user": "count"}, replies=[{"content": "one"}, {"content": "two"}],
                    then="cycle")
    client = zenmux.openai_client()
    assert [ask(client, "count").choices[0].message.content for _ in range(2)] == ["one", "two"]
    zenmux.clear()
    assert ask(client, "count").choices[0].message.content == "one"
    assert len(zenmux.requests) == 1


def test_the_clock_can_be_frozen_and_advanced(zenmux):
    client = zenmux.openai_client()
    assert zenmux.freeze_clock("2026-01-01T00:00:00Z") == 1767225600
    assert ask(client, "what time").created == 1767225600
    assert zenmux.advance_clock(60) == 1767225660
    assert ask(client, "and now").created == 1767225660


def test_a_path_loads_with_file_lines(zenmux):
    assert zenmux.control.call("GET", "/clock")["frozen"] is False  # the test before put the clock back
    assert zenmux.load("tests/scenarios/weather.yaml") == ["weather-call-tool", "weather-answer"]
    wheres = [rule.where for rule in zenmux.unused_rules()]
    assert wheres[0].endswith("weather.yaml:CALL_LINE") and wheres[1].endswith("weather.yaml:ANSWER_LINE")


@pytest.mark.zenmux(strict=True, seed=7)
def test_a_marker_with_other_settings_gets_a_dedicated_strict_server(zenmux):
    assert zenmux.dedicated
    with pytest.raises(openai.NotFoundError) as info:
        ask(zenmux.openai_client(), "nothing matches this")
    assert info.value.type == "emulator_no_match"
    assert zenmux.requests[-1].error_type == "emulator_no_match"


@pytest.mark.asyncio
async def test_an_async_test_with_the_async_client(zenmux):
    zenmux.add_rule("anything", reply={"content": "from async"})
    client = zenmux.async_openai_client()
    reply = await client.chat.completions.create(
        model="anthropic/claude-sonnet-4.5", messages=[{"role": "user", "content": "hi"}])
    await client.close()
    assert reply.choices[0].message.content == "from async"
    assert [e.rule for e in zenmux.requests] == ["anything"]
    zenmux.assert_all_rules_used()
"""
)

MODULE_MARKER = (
    AGENT
    + """
pytestmark = pytest.mark.zenmux(scenarios=["tests/scenarios/weather.yaml"])


def test_the_module_marker_loads_its_scenario(zenmux):
    reply = ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    assert reply.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert zenmux.requests[-1].rule == "weather-call-tool"
    assert [rule.name for rule in zenmux.unused_rules()] == ["weather-answer"]


@pytest.mark.zenmux(clock=1767225600)
def test_a_test_marker_adds_settings_to_the_module_scenarios(zenmux):
    assert zenmux.dedicated
    reply = ask(zenmux.openai_client(), "Weather in Shanghai?", tools=[WEATHER_TOOL])
    assert reply.created == 1767225600
    assert zenmux.requests[-1].rule == "weather-call-tool"
"""
)


def test_the_handle_in_passing_tests(pytester: pytest.Pytester) -> None:
    behaviours = BEHAVIOURS.replace("CALL_LINE", str(rule_line("weather-call-tool"))).replace(
        "ANSWER_LINE", str(rule_line("weather-answer"))
    )
    write_example(pytester, **{"tests/test_behaviours.py": behaviours, "tests/test_module_marker.py": MODULE_MARKER})
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "tests/test_behaviours.py", "tests/test_module_marker.py", "-v"
    )
    result.assert_outcomes(passed=11)
    assert (pytester.path / SCENARIO).is_file()
