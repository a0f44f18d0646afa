"""Issue 37 item 3: the pytest handle reads and jumps its session's scenario states
(`zenmux.state`, `zenmux.set_state`), and `--zenmux-report` lists the scenarios no rule moved out
of `started` in any test."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import AGENT, write_example
from tests.scenarios.test_states import FLOW

TESTS = (
    AGENT
    + f'''
FLOW = """{FLOW}"""
IDLE = """
rules:
  - name: idle-start
    scenario: idle
    when_state: started
    set_state: busy
    match: {{last_user: {{contains: wake up}}}}
    reply: {{content: awake}}
"""


def test_flow(zenmux):
    zenmux.load(FLOW)
    client = zenmux.openai_client()
    assert zenmux.state("agent") == "started"
    assert ask(client, "weather").choices[0].message.content == "calling the tool"
    assert zenmux.state("agent") == "tool_called"
    zenmux.set_state("agent", "done")
    assert zenmux.state("agent") == "done"
    assert ask(client, "weather").choices[0].message.content == "anything else?"
    with pytest.raises(ValueError, match="no rule names scenario 'nope'"):
        zenmux.state("nope")
    with pytest.raises(ValueError, match="set_state"):
        zenmux.set_state("nope", "done")


def test_another_session_starts_at_started(zenmux):
    zenmux.load(FLOW)
    assert zenmux.state("agent") == "started"


def test_idle(zenmux):
    zenmux.load(IDLE)
    ask(zenmux.openai_client(), "something else")
'''
)


def test_the_handle_reads_and_sets_states_and_the_report_lists_scenarios_never_moved(
    pytester: pytest.Pytester,
) -> None:
    write_example(pytester, **{"tests/test_states.py": TESTS})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--zenmux-report", "tests/test_states.py")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*= zenmux report =*", "scenarios that never left started: 1", "  idle"])
