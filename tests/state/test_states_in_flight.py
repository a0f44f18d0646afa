"""Issue 37 item 1: under `--state redis://` a scenario's move is atomic. With 40 requests of one
session in flight on two instances at a transition, exactly one is answered from the old state's
rule (and makes the move); the others are answered from the new state's."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.conftest import MakeServer
from tests.state.helpers import ask, content, control

GATE = """
rules:
  - name: before
    scenario: gate
    when_state: started
    set_state: open
    match: {last_user: {contains: knock}}
    reply: {content: old}
  - name: after
    scenario: gate
    when_state: open
    match: {last_user: {contains: knock}}
    reply: {content: new}
"""
IN_FLIGHT = 40


def test_forty_requests_at_a_transition_on_two_instances_move_the_state_once(make_server: MakeServer, redis_url: str):
    origins = [make_server(GATE, state=redis_url).origin for _ in range(2)]
    for session in ("first", "second"):
        with ThreadPoolExecutor(IN_FLIGHT) as pool:
            said = list(pool.map(lambda i, s=session: content(ask(origins[i % 2], s, "knock")), range(IN_FLIGHT)))
        assert Counter(said) == Counter({"old": 1, "new": IN_FLIGHT - 1}), Counter(said)
    listed = control(origins[1], "states").json()["scenarios"]["gate"]["sessions"]
    assert listed == {"first": {"state": "open", "pending": None}, "second": {"state": "open", "pending": None}}
    moved = [e for e in control(origins[0], "journal?session=first").json()["entries"] if e["state_after"] == "open"]
    assert sum(e["state_before"] == "started" for e in moved) == 1


def test_the_control_api_steers_states_in_the_shared_state(make_server: MakeServer, redis_url: str):
    one, two = (make_server(GATE, state=redis_url).origin for _ in range(2))
    assert control(one, "states/gate", {"state": "open", "session": "s"}, method="PUT").status == 200
    assert content(ask(two, "s", "knock")) == "new"
    assert control(two, "states/gate?session=s", method="DELETE").json()["reset"] == 1
    assert content(ask(one, "s", "knock")) == "old"
    assert control(two, "sessions/reset", {}).status == 200
    assert control(one, "states").json()["scenarios"]["gate"]["sessions"] == {}
    assert content(ask(two, "s", "knock")) == "old"
