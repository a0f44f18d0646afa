"""Issue 37 item 1: under `--state redis://` a scenario's move is atomic. With 40 requests of one
session in flight on two instances at a transition, exactly one is answered from the old state's
rule (and makes the move); the others are answered from the new state's."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.cli.test_cli import clean_env
from tests.conftest import MakeServer
from tests.state.helpers import ask, content, control
from tests.state.test_workers import origin, pids, said, serve  # noqa: F401  (serve: the fixture)

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


def knock(origins: list[str], session: str) -> Counter[str]:
    """IN_FLIGHT requests of one session at once, spread over the origins in turn."""
    with ThreadPoolExecutor(IN_FLIGHT) as pool:
        return Counter(pool.map(lambda i: content(ask(origins[i % len(origins)], session, "knock")), range(IN_FLIGHT)))


def test_forty_requests_at_a_transition_on_two_instances_move_the_state_once(make_server: MakeServer, redis_url: str):
    origins = [make_server(GATE, state=redis_url).origin for _ in range(2)]
    for session in ("first", "second"):
        answered = knock(origins, session)
        assert answered == Counter({"old": 1, "new": IN_FLIGHT - 1}), answered
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


def test_forty_requests_at_a_transition_across_two_workers_move_the_state_once(
    serve: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    redis_url: str,
):
    folder = tmp_path / "gate"
    folder.mkdir()
    (folder / "gate.yaml").write_text(GATE, encoding="utf-8")
    served = serve(
        "--scenarios", str(folder), env=clean_env(ZENMUX_EMULATOR_WORKERS="2", ZENMUX_EMULATOR_STATE=redis_url)
    )
    said(served)
    assert len(pids(served, 2)) == 2
    answered = knock([origin(served)], "workers")
    assert answered == Counter({"old": 1, "new": IN_FLIGHT - 1}), answered
