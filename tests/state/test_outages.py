"""Issue 31, items 4 and 7: Redis killed and restarted empty (a CI service container, a FLUSHDB).
While it is down every request answers the one 503 and the log has one warning for the outage
(not two tracebacks per request); once it is back no request answers 500 (a dropped pooled
connection is retried on a new one), and the first request re-asserts what the instances had in
force: the frozen clock and the control API's scenarios, with one loud warning of what was lost."""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Iterator

import pytest
import redis

from tests.conftest import FROZEN, MakeServer
from tests.faces.objectiveai.examples import REQUEST_A
from tests.faces.objectiveai.wire_helpers import error_of, raw
from tests.state.helpers import SCENARIO, ask, content, control
from zenmux_emulator.state.redis_server import RedisServer, free_port

LATE = b"rules: [{name: late, match: {last_user: {contains: late}}, reply: {content: added late}}]"


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own, to kill and start again on its port."""
    server = RedisServer(port=free_port()).start()
    try:
        yield server
    finally:
        server.stop()


def warnings(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "emulator.state" and r.levelno == logging.WARNING and words in r.getMessage()
    ]


def test_redis_restarted_empty_is_one_warning_a_503_meanwhile_and_no_500_after(
    make_server: MakeServer, own_redis: RedisServer, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO, logger="emulator.state")
    a, b = make_server(SCENARIO, state=own_redis.url), make_server(SCENARIO, state=own_redis.url)
    assert control(a.origin, "scenarios?name=late", LATE, **{"Content-Type": "application/yaml"}).status == 201
    assert content(ask(b.origin, "s", "late")) == "added late"
    assert [ask(a.origin, "s", "step").status for _ in range(2)] == [200, 200]

    for outage in (1, 2):
        own_redis.stop()
        down = [ask(server.origin, f"down-{i}", "hello") for i in range(6) for server in (a, b)]
        assert {answer.status for answer in down} == {503}
        assert {answer.json()["error"]["type"] for answer in down} == {"emulator_state_unavailable"}
        assert len({answer.json()["error"]["message"] for answer in down}) == 1
        assert len(warnings(caplog, "stopped answering")) == 2 * outage  # one per instance per outage
        assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"

        own_redis.start()  # on the same port, empty
        back = [ask(server.origin, "after", text) for server in (a, b, a, b) for text in ("late", "step")]
        assert {answer.status for answer in back} == {200}, [answer.text for answer in back]
        assert content(back[0]) == "added late"  # the control API's scenario, re-asserted
        assert [content(answer) for answer in back[1::2]] == ["one", "two", "three", "three"]  # restarted
        assert {answer.json()["created"] for answer in back} == {FROZEN}  # the clock stays frozen
        assert len(warnings(caplog, "was emptied")) == outage  # one instance re-asserts, and says so
        with redis.Redis.from_url(own_redis.url) as client:
            assert float(client.get("zenmux:clock") or 0) == FROZEN
        assert control(b.origin, "clock").json()["frozen"] is True


def test_a_flushdb_is_found_and_re_asserted_on_the_next_request(
    make_server: MakeServer, own_redis: RedisServer, caplog: pytest.LogCaptureFixture
):
    server = make_server(SCENARIO, state=own_redis.url)
    assert control(server.origin, "scenarios?name=late", LATE, **{"Content-Type": "application/yaml"}).status == 201
    with redis.Redis.from_url(own_redis.url) as client:
        client.flushdb()
    answer = ask(server.origin, "s", "late")
    assert answer.status == 200 and content(answer) == "added late" and answer.json()["created"] == FROZEN
    assert len(warnings(caplog, "was emptied")) == 1


def test_an_instance_that_missed_a_control_api_change_does_not_take_it_back_when_redis_is_emptied(
    make_server: MakeServer, own_redis: RedisServer, caplog: pytest.LogCaptureFixture
):
    """Issue 40, item 9: the instance that found the database emptied re-asserted the scenarios it
    had, and one that had not yet taken the newest put an older set back, which the others then
    synced to: the control API's scenario was lost (2 runs in 5 under --workers). Versions now only
    move forward: the instance that has the newer set puts it back."""
    a, b = make_server(SCENARIO, state=own_redis.url), make_server(SCENARIO, state=own_redis.url)
    assert content(ask(b.origin, "s", "step")) == "one"  # b has served, at the scenarios' version 0
    assert control(a.origin, "scenarios?name=late", LATE, **{"Content-Type": "application/yaml"}).status == 201
    with redis.Redis.from_url(own_redis.url) as client:
        client.flushdb()
    assert ask(b.origin, "s", "late").headers.get("x-emulator-unmatched") == "true"  # b put back what it had
    assert content(ask(a.origin, "s", "late")) == "added late"  # a has the newer set, and puts it back
    assert content(ask(b.origin, "s", "late")) == "added late"  # which b then takes
    assert control(b.origin, "health").json()["api_scenarios"] == ["late"]
    assert len(warnings(caplog, "re-asserted its 1 control-API scenarios")) == 1


def test_a_hung_redis_answers_503_within_the_state_timeout_with_one_warning(
    make_server: MakeServer, own_redis: RedisServer, caplog: pytest.LogCaptureFixture
):
    """Issue 40, item 9: a Redis that accepts connections but never answers (here stopped with
    SIGSTOP) held every request and the health check for as long as it hung, with nothing logged."""
    caplog.set_level(logging.INFO, logger="emulator.state")
    server = make_server(SCENARIO, state=own_redis.url, state_timeout=0.5)
    assert content(ask(server.origin, "s", "step")) == "one"
    assert own_redis.process is not None
    pid = own_redis.process.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        hung = [ask(server.origin, f"hung-{i}", "hello") for i in range(3)]
        health = control(server.origin, "health")
        waited = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert [answer.status for answer in [*hung, health]] == [503] * 4, [answer.text for answer in hung]
    assert {answer.json()["error"]["type"] for answer in [*hung, health]} == {"emulator_state_unavailable"}
    assert waited < 20, waited  # four operations of at most 0.5 s each; before, each waited for good
    [warning] = warnings(caplog, "stopped answering")
    assert "no answer within 0.5 s" in warning, warning
    assert content(ask(server.origin, "s", "step")) == "two"  # Redis answers again: so does the session


def test_objectiveai_answers_the_outage_in_its_own_error_shape(make_server: MakeServer, own_redis: RedisServer):
    """Issue 40, item 9: the Query Completions API's 503 during an outage came in ZenMux's envelope
    (the store failed again while finishing the request, and its answer replaced the face's)."""
    server = make_server(SCENARIO, state=own_redis.url)
    own_redis.stop()
    answer = raw(server, "s", REQUEST_A)
    assert "does not answer" in error_of(answer, 503, "emulator_state_unavailable")
