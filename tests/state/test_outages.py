"""Issue 31, items 4 and 7: Redis killed and restarted empty (a CI service container, a FLUSHDB).
While it is down every request answers the one 503 and the log has one warning for the outage
(not two tracebacks per request); once it is back no request answers 500 (a dropped pooled
connection is retried on a new one), and the first request re-asserts what the instances had in
force: the frozen clock and the control API's scenarios, with one loud warning of what was lost."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import redis

from tests.conftest import FROZEN, MakeServer
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
