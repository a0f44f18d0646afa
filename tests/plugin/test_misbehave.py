"""Faults of the misbehaviour catalogue from the plugin: the `zenmux` marker's `misbehave`, the
handle's `misbehave()` and `misbehaved()`, the failing test's journal section and the report."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, write_example

MISBEHAVING = (
    AGENT
    + """

@pytest.mark.zenmux(misbehave="refusal")
def test_the_marker_refuses(zenmux):
    reply = ask(zenmux.openai_client(), "hello")
    assert reply.choices[0].message.refusal and reply.choices[0].message.content is None
    assert zenmux.misbehaved() == ["refusal"]


def test_the_handle_duplicates_ids(zenmux):
    zenmux.misbehave("tool-call-id-duplicate")
    reply = ask(zenmux.openai_client(), "weather", tools=[WEATHER_TOOL], tool_choice="required")
    first, second = reply.choices[0].message.tool_calls
    assert first.id == second.id
    zenmux.misbehave(None)
    assert ask(zenmux.openai_client(), "hello").choices[0].message.content
    assert zenmux.misbehaved() == ["tool-call-id-duplicate"]


def test_a_bad_fault_is_refused(zenmux):
    with pytest.raises(ValueError, match="unknown fault 'hallucinate'"):
        zenmux.misbehave("hallucinate")


@pytest.mark.zenmux(misbehave={"fault": "tool-args-invalid-json", "variant": "single-quotes"})
def test_fails_on_broken_arguments(zenmux):
    reply = ask(zenmux.openai_client(), "weather", tools=[WEATHER_TOOL], tool_choice="required")
    json.loads(reply.choices[0].message.tool_calls[0].function.arguments)


def test_the_session_is_clean_after_the_marker(zenmux):
    assert ask(zenmux.openai_client(), "hello").choices[0].message.content
    assert zenmux.misbehaved() == []
"""
)


def test_marker_handle_journal_and_report_name_the_faults(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_misbehaving.py": MISBEHAVING})
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--zenmux-report", "tests/test_misbehaving.py"
    )
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_fails_on_broken_arguments _*",
            "zenmux: 1 reply(ies) misbehaved on purpose (docs: Models that misbehave):",
            "  #* POST /api/v1/chat/completions: tool-args-invalid-json;single-quotes",
            "*JSONDecodeError*",
            "*- zenmux journal -*",
            "#* POST /api/v1/chat/completions 200 rule=- misbehaved=tool-args-invalid-json;single-quotes",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*= zenmux report =*",
            "tests whose replies misbehaved: 3",
            "  tests/test_misbehaving.py::test_the_marker_refuses: refusal",
            "  tests/test_misbehaving.py::test_the_handle_duplicates_ids: tool-call-id-duplicate",
            "  tests/test_misbehaving.py::test_fails_on_broken_arguments: tool-args-invalid-json;single-quotes",
        ]
    )
