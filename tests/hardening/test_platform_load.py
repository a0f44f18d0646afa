"""Issue 40, item 7: the Platform API's `/usage` and `/cost` walked every bucket of the period on
the event loop: after 15,000 keys about 300 ms a request (0.5 to 0.6 s of a health probe's wait on
the loaded test machine), growing with the keys. They are answered in a thread now, from the
period's buckets taken on the loop (0.07 s of a probe's wait there)."""

from __future__ import annotations

import http.client
import threading
from functools import partial
from urllib.parse import urlsplit

import orjson

from tests.conftest import MakeServer
from tests.hardening.stalls import timed_with_probes
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
KEYS = 15_000
PROBE_WITHIN_S = 0.2
"""The least of three requests' slowest probe: the walk held every probe behind it (at least 0.31
to 0.51 s before, 0.07 s after, on the loaded machine), while a load spike on the shared machine
would have to strike all three."""
ROUTES = (
    "/api/v1/management/usage?type=usage&query_dimension=BIZ_MTH&query_time=202601",
    "/api/v1/management/cost?type=cost&query_dimension=BIZ_DT&query_time=20260101",
)


def spend(server: EmulatorServer, keys: range) -> None:
    """One chat completion on each key, over one kept-alive connection."""
    parts = urlsplit(server.origin)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
    body = orjson.dumps({"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": "hi"}]})
    try:
        for i in keys:
            conn.request(
                "POST",
                "/api/v1/chat/completions",
                body,
                {"Authorization": f"Bearer sk-key-{i}", "Content-Type": "application/json"},
            )
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200
    finally:
        conn.close()


def analytics(server: EmulatorServer, route: str) -> tuple[int, bytes]:
    parts = urlsplit(server.origin)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
    try:
        conn.request("GET", route, headers={"Authorization": "Bearer sk-mg-v1-test"})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def test_usage_and_cost_after_15000_keys_do_not_hold_a_health_probe(make_server: MakeServer) -> None:
    server = make_server(RULES, journal_size=10)
    fillers = [threading.Thread(target=spend, args=(server, range(k, KEYS, 4))) for k in range(4)]
    for filler in fillers:
        filler.start()
    for filler in fillers:
        filler.join()
    for route in ROUTES:
        timings = [timed_with_probes(server, partial(analytics, server, route)) for _ in range(3)]
        assert all(t.status == 200 for t in timings), timings[0].body[:300]
        assert min(t.slowest_probe for t in timings) < PROBE_WITHIN_S, [t.slowest_probe for t in timings]
        data = orjson.loads(timings[0].body)["data"]
        rows = data["tokensByApiKey"] if "usage" in route else data["analysis"]["costByApiKey"]
        assert len(rows) == KEYS
