"""`/_emulator/journal`: the requests received, filtered by session, rule, path, unmatched and limit;
`journal/unmatched` with the near misses; clearing one session or all."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control, error_of, ok
from tests.scenarios.helpers import ask, get, post_chat
from zenmux_emulator.pytest_plugin.server import EmulatorServer

OpenClient = Callable[..., openai.OpenAI]
CHAT = "/api/v1/chat/completions"

RULES = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: hi}
  - name: weather
    match: {last_user: {contains: weather}, model: "anthropic/*"}
    reply: {content: sunny}
"""


def traffic(server: EmulatorServer, open_client: OpenClient) -> None:
    """seq 1: a/greet, 2: a/unmatched, 3: b/greet, 4: GET models, 5: a 400 with no rule."""
    alice, bob = open_client(server, "a"), open_client(server, "b")
    assert ask(alice, "hello").rule == "greet"
    assert ask(alice, "weather today?").rule is None
    assert ask(bob, "hello there").rule == "greet"
    assert get(server.base_url + "/models").status == 200
    assert post_chat(server, {"model": "openai/gpt-5.4-mini"}, {"X-Emulator-Session": "a"}).status == 400


def seqs(server: EmulatorServer, route: str) -> list[int]:
    listing = ok(control(server, "GET", route))
    assert listing["count"] == len(listing["entries"])
    return [e["seq"] for e in listing["entries"]]


@pytest.fixture
def busy(make_server: MakeServer, open_client: OpenClient) -> EmulatorServer:
    server = make_server(RULES)
    traffic(server, open_client)
    return server


def test_the_journal_lists_every_request_in_order_with_its_outcome(busy: EmulatorServer):
    entries = ok(control(busy, "GET", "journal"))["entries"]
    assert [(e["seq"], e["path"], e["session"], e["rule"], e["status"]) for e in entries] == [
        (1, CHAT, "a", "greet", 200),
        (2, CHAT, "a", None, 200),
        (3, CHAT, "b", "greet", 200),
        (4, "/api/v1/models", None, None, 200),
        (5, CHAT, "a", None, 400),
    ]
    assert entries[0]["headers"]["Authorization"] == "Bearer ***"
    assert entries[0]["response"]["choices"][0]["message"]["content"] == "hi"


def test_an_error_answered_keeps_its_envelope_in_the_journal(busy: EmulatorServer):
    # Issue 18: every 4xx entry had `response: null`, so the README's recipe printed `"error": null`.
    [entry] = [e for e in ok(control(busy, "GET", "journal"))["entries"] if e["status"] >= 400]
    assert entry["status"] == 400 and entry["error_type"] == "invalid_params"
    assert entry["response"] == {
        "error": {"code": "400", "type": "invalid_params", "message": entry["response"]["error"]["message"]}
    }
    assert "messages" in entry["response"]["error"]["message"]  # the missing field, named


def test_filters_select_by_rule_session_path_and_unmatched(busy: EmulatorServer):
    assert seqs(busy, "journal?rule=greet") == [1, 3]
    assert seqs(busy, "journal?session=a") == [1, 2, 5]
    assert seqs(busy, "journal?path=/api/v1/models") == [4]
    assert seqs(busy, "journal?unmatched=true") == [2]  # the 400 never reached matching
    assert seqs(busy, "journal?unmatched=false") == [1, 2, 3, 4, 5]
    assert seqs(busy, "journal?session=a&rule=greet") == [1]
    assert seqs(busy, "journal?session=nobody") == []


def test_limit_keeps_the_newest_entries(busy: EmulatorServer):
    assert seqs(busy, "journal?limit=2") == [4, 5]
    assert seqs(busy, "journal?session=a&limit=2") == [2, 5]
    assert seqs(busy, "journal?limit=50") == [1, 2, 3, 4, 5]
    assert seqs(busy, "journal?limit=0") == []


@pytest.mark.parametrize(
    ("route", "words"),
    [
        ("journal?limit=-1", "Parameter limit is not valid"),
        ("journal?limit=ten", "Parameter limit is not valid"),
        ("journal?unmatched=maybe", "Parameter unmatched is not valid"),
        ("journal?rules=greet", "Parameter rules is not supported here"),
        ("journal/unmatched?rule=greet", "Parameter rule is not supported here"),
    ],
)
def test_bad_filters_are_refused(busy: EmulatorServer, route: str, words: str):
    assert words in error_of(control(busy, "GET", route), 400, "invalid_params")["message"]


def test_unmatched_requests_come_with_their_near_misses(busy: EmulatorServer):
    listing = ok(control(busy, "GET", "journal/unmatched"))
    [entry] = listing["entries"]
    assert (entry["seq"], entry["session"], entry["model"], entry["status"], entry["stream"]) == (
        2,
        "a",
        "openai/gpt-5.4-mini",
        200,
        False,
    )
    assert entry["body"]["messages"] == [{"role": "user", "content": "weather today?"}]
    nearest = entry["near_misses"][0]
    assert nearest["rule"] == "weather"
    assert nearest["misses"] == [{"key": "model", "expected": "'anthropic/*'", "actual": "'openai/gpt-5.4-mini'"}]
    assert ok(control(busy, "GET", "journal/unmatched?session=b"))["entries"] == []


def test_strict_refusals_are_unmatched_too(make_server: MakeServer, open_client: OpenClient):
    server = make_server(RULES, strict=True)
    client = open_client(server, "strict")
    with pytest.raises(openai.NotFoundError):
        ask(client, "nothing matches this")
    [entry] = ok(control(server, "GET", "journal/unmatched?limit=5"))["entries"]
    assert (entry["status"], entry["error_type"]) == (404, "emulator_no_match")
    assert {m["rule"] for m in entry["near_misses"]} == {"greet", "weather"}


def test_clearing_one_session_then_all(busy: EmulatorServer):
    assert ok(control(busy, "DELETE", "journal?session=a")) == {"cleared": 3}
    assert seqs(busy, "journal") == [3, 4]
    assert ok(control(busy, "DELETE", "journal")) == {"cleared": 2}
    assert seqs(busy, "journal") == []


def test_control_requests_are_not_journaled(busy: EmulatorServer):
    for route in ("health", "scenarios", "clock", "journal", "nowhere"):
        control(busy, "GET", route)
    assert {e["path"] for e in ok(control(busy, "GET", "journal"))["entries"]} == {CHAT, "/api/v1/models"}
