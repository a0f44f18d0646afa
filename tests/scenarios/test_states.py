"""Issue 37 items 1 and 2: scenario states (`scenario`, `when_state`, `set_state`), per session,
moved on the emulator's clock, and steered through `/_emulator/states`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHIPPED, MakeServer
from tests.state.helpers import ask, content, control
from tests.support.shipped import build_set, load_paths
from zenmux_emulator.foundation.errors import ScenarioError

FLOW = """
rules:
  - name: call-tool
    scenario: agent
    when_state: started
    set_state: tool_called
    match: {last_user: {contains: weather}}
    reply: {content: calling the tool}
  - name: use-result
    scenario: agent
    when_state: tool_called
    set_state: done
    match: {last_user: {contains: weather}}
    reply: {content: it is sunny}
  - name: finished
    scenario: agent
    when_state: done
    match: {last_user: {contains: weather}}
    reply: {content: "anything else?"}
"""

OUTAGE = """
rules:
  - name: outage
    priority: 10
    scenario: provider
    when_state: down
    match: {}
    reply: {error: {status: 503, message: the provider is down}}
  - name: trip
    scenario: provider
    set_state: {to: down, after_s: 60, then: started}
    match: {last_user: {contains: trip}}
    reply: {content: tripped}
  - name: normal
    match: {}
    reply: {content: all good}
"""


def states(origin: str, **query: str) -> dict[str, Any]:
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    answer = control(origin, "states" + suffix)
    assert answer.status == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def state_of(origin: str, scenario: str, session: str) -> str | None:
    standing = states(origin)["scenarios"][scenario]["sessions"].get(session)
    return None if standing is None else str(standing["state"])


def test_a_three_rule_flow_answers_in_order_per_session_and_is_steered_by_the_control_api(make_server: MakeServer):
    origin = make_server(FLOW).origin
    said = [content(ask(origin, "one", "what is the weather?")) for _ in range(4)]
    assert said == ["calling the tool", "it is sunny", "anything else?", "anything else?"]
    assert content(ask(origin, "two", "weather")) == "calling the tool"  # a second session starts again
    assert state_of(origin, "agent", "one") == "done" and state_of(origin, "agent", "two") == "tool_called"
    assert states(origin, session="two")["scenarios"]["agent"]["sessions"] == {
        "two": {"state": "tool_called", "pending": None}
    }

    jumped = control(origin, "states/agent", {"state": "done", "session": "three"}, method="PUT")
    assert jumped.status == 200 and jumped.json() == {"scenario": "agent", "session": "three", "state": "done"}
    assert content(ask(origin, "three", "weather")) == "anything else?"

    reset = control(origin, "states/agent?session=three", method="DELETE")
    assert reset.status == 200 and reset.json()["reset"] == 1
    assert content(ask(origin, "three", "weather")) == "calling the tool"
    assert state_of(origin, "agent", "one") == "done"  # the other sessions kept theirs

    assert control(origin, "sessions/reset", {"session": "one"}).status == 200
    assert state_of(origin, "agent", "one") is None
    assert content(ask(origin, "one", "weather")) == "calling the tool"
    assert control(origin, "states/agent", method="DELETE").json()["reset"] == 3  # every session's
    assert states(origin)["scenarios"]["agent"]["sessions"] == {}

    entries = control(origin, "journal?session=one").json()["entries"]
    moves = [(e["rule"], e["scenario"], e["state_before"], e["state_after"]) for e in entries]
    assert moves[:3] == [
        ("call-tool", "agent", "started", "tool_called"),
        ("use-result", "agent", "tool_called", "done"),
        ("finished", "agent", "done", "done"),
    ]


def test_the_control_api_refuses_an_unknown_scenario_and_a_missing_session(make_server: MakeServer):
    origin = make_server(FLOW).origin
    unknown = control(origin, "states/nope", {"state": "done", "session": "s"}, method="PUT")
    assert unknown.status == 404 and unknown.json()["error"]["type"] == "unknown_scenario"
    no_session = control(origin, "states/agent", {"state": "done"}, method="PUT")
    assert no_session.status == 400 and "session" in no_session.json()["error"]["message"]
    bad = control(origin, "states/agent", {"state": 3, "session": "s"}, method="PUT")
    assert bad.status == 400 and "state" in bad.json()["error"]["message"]
    assert control(origin, "states?sesion=x").status == 400


def test_a_timed_outage_recovers_when_the_emulators_clock_has_passed_it(make_server: MakeServer):
    origin = make_server(OUTAGE).origin
    assert content(ask(origin, "s", "hello")) == "all good"
    assert content(ask(origin, "s", "trip the breaker")) == "tripped"
    down = ask(origin, "s", "hello")
    assert down.status == 503 and down.json()["error"]["message"] == "the provider is down"
    pending = states(origin)["scenarios"]["provider"]["sessions"]["s"]
    assert pending["state"] == "down" and pending["pending"]["to"] == "started" and pending["pending"]["due_in_s"] == 60
    assert content(ask(origin, "other", "hello")) == "all good"  # another session is not down
    assert control(origin, "clock", {"advance": 59}).status == 200
    assert ask(origin, "s", "hello").status == 503
    assert control(origin, "clock", {"advance": 2}).status == 200
    assert content(ask(origin, "s", "hello")) == "all good"
    assert states(origin)["scenarios"]["provider"]["sessions"]["s"] == {"state": "started", "pending": None}


def test_chaos_an_admission_refusal_and_a_refused_request_move_no_state(make_server: MakeServer):
    origin = make_server(
        """
        settings:
          limits: {rpm: 3, window_s: 60}
        rules:
          - name: chaotic
            scenario: flow
            set_state: moved
            chaos: {rate: 1}
            match: {last_user: {contains: chaos}}
            reply: {content: never}
          - name: mover
            scenario: flow
            when_state: started
            set_state: moved
            match: {last_user: {contains: move}}
            reply: {content: moved}
        """
    ).origin
    struck = ask(origin, "s", "chaos")
    assert struck.status == 503
    assert state_of(origin, "flow", "s") is None
    assert ask(origin, "s", "move", model="nobody/none").status == 400  # refused before any rule
    assert state_of(origin, "flow", "s") is None
    assert content(ask(origin, "s", "move")) == "moved"  # the third request of the window
    assert state_of(origin, "flow", "s") == "moved"
    control(origin, "states/flow", {"state": "started", "session": "s"}, method="PUT")
    assert ask(origin, "s", "move").status == 429  # the window is spent
    assert state_of(origin, "flow", "s") == "started"
    entry = control(origin, "journal?session=s").json()["entries"][0]
    assert (entry["rule"], entry["state_before"], entry["state_after"]) == ("chaotic", "started", "started")


def test_a_server_wide_scenario_is_shared_by_every_session(make_server: MakeServer):
    origin = make_server("settings:\n  server_wide_scenarios: [agent]\n" + FLOW).origin
    assert content(ask(origin, "one", "weather")) == "calling the tool"
    assert content(ask(origin, "two", "weather")) == "it is sunny"
    listed = states(origin)["scenarios"]["agent"]
    assert listed["server_wide"] and listed["sessions"] == {"*": {"state": "done", "pending": None}}
    assert control(origin, "states/agent", {"state": "tool_called"}, method="PUT").json()["session"] == "*"
    assert content(ask(origin, "three", "weather")) == "it is sunny"
    assert control(origin, "sessions/reset", {}).status == 200
    assert content(ask(origin, "one", "weather")) == "calling the tool"


def test_when_state_and_set_state_need_a_scenario(tmp_path: Path):
    path = tmp_path / "flow.yaml"
    path.write_text("rules:\n  - name: a\n    when_state: done\n    reply: {content: x}\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_paths([path])
    (problem,) = caught.value.problems
    assert problem.line == 3 and "'when_state' needs 'scenario'" in problem.reason, str(problem)


def test_a_rule_matching_everything_in_one_state_hides_no_rule():
    assert not build_set([("outage.yaml", OUTAGE)]).warnings


def test_validate_warns_of_a_when_state_no_rule_reaches_and_a_state_no_rule_leaves(tmp_path: Path):
    path = tmp_path / "flow.yaml"
    path.write_text(
        FLOW
        + """
  - name: orphan
    scenario: agent
    when_state: lost
    match: {last_user: {contains: lost}}
    reply: {content: never reached}
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "zenmux_emulator", "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok: 4 rules in 1 file, 2 warnings", done
    assert f"{path}:21: rule 'orphan' matches in state 'lost' of scenario 'agent', which no rule" in done.stderr
    assert f"{path}:9: no rule leaves state 'done' of scenario 'agent'" in done.stderr
    assert not load_paths([SHIPPED / "states.yaml"]).warnings  # the shipped flows loop or time out


def test_would_this_match_reads_the_sessions_state(make_server: MakeServer):
    origin = make_server(FLOW).origin
    probe = {
        "path": "/api/v1/chat/completions",
        "session": "probe",
        "body": {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "weather"}]},
    }
    assert control(origin, "match", probe).json()["rule"] == "call-tool"
    control(origin, "states/agent", {"state": "tool_called", "session": "probe"}, method="PUT")
    assert control(origin, "match", probe).json()["rule"] == "use-result"
    assert state_of(origin, "agent", "probe") == "tool_called"  # asking moved nothing
