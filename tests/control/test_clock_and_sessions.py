"""`/_emulator/clock` moves the time `created` carries; `/_emulator/sessions/reset` restarts reply sequences."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import openai
import pytest

from tests.conftest import FROZEN, MakeServer
from tests.control.helpers import control, error_of, ok
from tests.scenarios.helpers import ask

OpenClient = Callable[..., openai.OpenAI]
NOON = int(datetime(2030, 5, 1, 12, tzinfo=UTC).timestamp())  # 2030-05-01T12:00:00Z

SEQUENCE = """\
rules:
  - name: steps
    replies:
      - {content: first}
      - {content: second}
"""


def test_the_clock_reads_frozen_at_the_configured_time(make_server: MakeServer):
    server = make_server(SEQUENCE)
    assert ok(control(server, "GET", "clock")) == {"now": FROZEN, "frozen": True}


def test_freezing_sets_created_and_advancing_moves_it(make_server: MakeServer, open_client: OpenClient):
    server = make_server(SEQUENCE, clock=None)
    client = open_client(server)
    assert ok(control(server, "GET", "clock"))["frozen"] is False
    assert ok(control(server, "POST", "clock", json_body={"freeze_at": "2030-05-01T12:00:00Z"})) == {
        "now": NOON,
        "frozen": True,
    }
    assert ask(client, "hi").completion.created == NOON
    advanced = ok(control(server, "POST", "clock", json_body={"advance": 90.5}))
    assert advanced == {"now": NOON + 90.5, "frozen": True}
    assert ask(client, "hi").completion.created == NOON + 90
    with_offset = ok(control(server, "POST", "clock", json_body={"freeze_at": "2030-05-01T14:00:00+02:00"}))
    assert with_offset["now"] == NOON
    unix = ok(control(server, "POST", "clock", json_body={"freeze_at": 1_000_000}))
    assert unix == {"now": 1_000_000, "frozen": True}
    assert ask(client, "hi").completion.created == 1_000_000
    released = ok(control(server, "POST", "clock", json_body={"unfreeze": True}))
    assert released["frozen"] is False and released["now"] > 1_600_000_000  # the system clock again
    assert ask(client, "hi").completion.created > 1_600_000_000
    assert ok(control(server, "GET", "clock"))["frozen"] is False


def test_advancing_a_running_clock_freezes_it_ahead(make_server: MakeServer, open_client: OpenClient):
    server = make_server(SEQUENCE, clock=None)
    before = ok(control(server, "GET", "clock"))["now"]
    after = ok(control(server, "POST", "clock", json_body={"advance": 3600}))
    assert after["frozen"] is True and after["now"] >= before + 3600
    assert ask(open_client(server), "hi").completion.created == int(after["now"])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "exactly one of freeze_at, advance or unfreeze"),
        ({"freeze_at": 1, "advance": 2}, "exactly one of freeze_at, advance or unfreeze"),
        ({"rewind": 5}, "Parameter rewind is not supported here"),
        ({"freeze_at": "next tuesday"}, "Parameter freeze_at is not valid"),
        ({"freeze_at": -1}, "Parameter freeze_at is not valid"),
        ({"freeze_at": True}, "Parameter freeze_at is not valid"),
        ({"freeze_at": 1e20}, "Parameter freeze_at is not valid"),
        ({"advance": -5}, "Parameter advance is not valid"),
        ({"advance": "5"}, "Parameter advance is not valid"),
        ({"unfreeze": False}, "Parameter unfreeze is not valid"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_bad_clock_changes_are_refused_and_change_nothing(make_server: MakeServer, body: Any, words: str):
    server = make_server(SEQUENCE)
    assert words in error_of(control(server, "POST", "clock", json_body=body), 400, "invalid_params")["message"]
    assert ok(control(server, "GET", "clock")) == {"now": FROZEN, "frozen": True}


def test_a_clock_body_that_is_not_json_is_refused(make_server: MakeServer):
    server = make_server(SEQUENCE)
    response = control(server, "POST", "clock", text="{freeze_at: 5", content_type="application/json")
    assert "not valid JSON" in error_of(response, 400, "invalid_params")["message"]
    assert "empty" in error_of(control(server, "POST", "clock"), 400, "invalid_params")["message"]


def test_resetting_one_session_restarts_its_sequence_only(make_server: MakeServer, open_client: OpenClient):
    server = make_server(SEQUENCE)
    alice, bob = open_client(server, "alice"), open_client(server, "bob")
    assert [ask(alice, "x").content for _ in range(2)] == ["first", "second"]
    assert [ask(bob, "x").content for _ in range(2)] == ["first", "second"]
    assert ok(control(server, "POST", "sessions/reset", json_body={"session": "alice"})) == {
        "session": "alice",
        "reset": 1,
    }
    assert ask(alice, "x").content == "first"
    assert ask(bob, "x").content == "second"  # repeat_last: bob's position was kept


def test_resetting_without_a_body_restarts_every_session(make_server: MakeServer, open_client: OpenClient):
    server = make_server(SEQUENCE)
    alice, bob = open_client(server, "alice"), open_client(server, "bob")
    first_id = ask(alice, "x").completion.id
    for client in (alice, alice, bob, bob):
        ask(client, "x")
    assert ok(control(server, "POST", "sessions/reset")) == {"session": None, "reset": 2}
    again = ask(alice, "x")
    assert (again.content, again.completion.id) == ("first", first_id)  # ids restart with the count
    assert ask(bob, "x").content == "first"
    listing = ok(control(server, "GET", "scenarios?session=alice"))
    assert listing["rules"][0]["hits"] == {"total": 2, "session": 1}
    assert ok(control(server, "POST", "sessions/reset", json_body={"session": None}))["reset"] == 2


@pytest.mark.parametrize(
    ("body", "status", "type", "words"),
    [
        ({"session": "nobody"}, 404, "unknown_session", "Session 'nobody' is not known"),
        ({"session": 5}, 400, "invalid_params", "Parameter session is not valid"),
        ({"sessions": "alice"}, 400, "invalid_params", "Parameter sessions is not supported here"),
        ("alice", 400, "invalid_params", "must be a JSON object"),
    ],
)
def test_bad_resets_are_refused(
    make_server: MakeServer, open_client: OpenClient, body: Any, status: int, type: str, words: str
):
    server = make_server(SEQUENCE)
    alice = open_client(server, "alice")
    ask(alice, "x")
    assert words in error_of(control(server, "POST", "sessions/reset", json_body=body), status, type)["message"]
    assert ask(alice, "x").content == "second"  # nothing was reset
