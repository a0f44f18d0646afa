"""The liveness check of issue 31: a costly request answers (or is refused) promptly, and a health
probe sent while it runs answers promptly too, so no request holds the event loop.

The issue asks that a costly request answer (or be refused) within a second while a probe sent
meanwhile answers within 100 ms. The bounds here are wider, as tight as stays reliable on a
shared and loaded machine (the suite runs beside others on two cores, where one probe alone can
wait a few hundred milliseconds for a core): wide enough never to fail there for load alone, and
still far under the defects they catch, which held the loop 2 to 60 seconds (`make bench`
measures speed).

A bound exceeded once is measured again before it fails the test: a request that holds the loop
holds it every time it is sent, while a burst of load on the shared machine (other test workers,
a garbage collection in the test process, whose thread shares the server's interpreter) seldom
comes twice in a row. CI failed on a lone probe of 1.7 s after a 0.6 s refusal that, measured
again, probed in milliseconds."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from zenmux_emulator.pytest_plugin.server import EmulatorServer

ANSWER_WITHIN_S = 8.0
"""A costly request's answer (or refusal), end to end: the defects took 12 s and more. Small
bodies answer in under 0.05 s here; a 30 MB one took 2.5 s in one parallel run on the loaded
machine and 5.5 s in another (at a load of 10 on 2 cores): 5 s was tried, and failed."""
PROBE_WITHIN_S = 1.5
"""A health probe sent while the costly request runs: held behind it, it took as long. Behind a
small body the slowest of 47 took 0.54 s on the loaded machine (most under 0.02 s), but a lone
probe with nothing running before it took 1.09 s at a load of 10: 1 s was tried, and failed."""
BIG_BODY_PROBE_S = 3.0
"""The same for a body of tens of megabytes, whose reading, decoding, validating and hashing (each
linear, each on the loop) still take some hundreds of milliseconds together, up to 2.1 s under a
parallel run on the loaded machine; counting it took 2 to 4.5 s more."""


MAX_PROBES = 1000
"""Probes sent while one costly request runs: every 5 ms for the first 200, then every 50 ms (a
control-API load of 50,000 rules is probed through its whole half minute)."""


@dataclass(frozen=True)
class Timed:
    """What the costly request answered, how long it took, and the slowest probe meanwhile."""

    status: int
    body: bytes
    seconds: float
    slowest_probe: float
    probes: int
    again: Callable[[], Timed] | None = field(default=None, repr=False, compare=False)
    """The same measurement once more (no warm-up: the one-time work is done)."""


def health(server: EmulatorServer) -> float:
    """Seconds one `GET /_emulator/health` took, on its own connection."""
    parts = urlsplit(server.origin)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
    try:
        start = time.perf_counter()
        conn.request("GET", "/_emulator/health")
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        return time.perf_counter() - start
    finally:
        conn.close()


def timed_with_probes(
    server: EmulatorServer, send: Callable[[], tuple[int, bytes]], warm: Callable[[], object] | None = None
) -> Timed:
    """Run `send` (the costly request) in a thread and probe health until it answers; `warm`
    first, a cheap request of the same kind that does the server's one-time work (lazy imports)."""
    if warm is not None:
        warm()
    outcome: list[tuple[int, bytes, float]] = []

    def costly() -> None:
        start = time.perf_counter()
        status, body = send()
        outcome.append((status, body, time.perf_counter() - start))

    thread = threading.Thread(target=costly, daemon=True)
    thread.start()
    time.sleep(0.02)  # the costly request is on its way (and, if it stalls the loop, holding it)
    probes = [health(server)]
    while thread.is_alive() and len(probes) < MAX_PROBES:
        probes.append(health(server))
        time.sleep(0.005 if len(probes) < 200 else 0.05)  # densely at first, then through a long one
    thread.join(120)
    assert outcome, "the costly request did not answer in two minutes"
    status, body, seconds = outcome[0]
    return Timed(status, body, seconds, max(probes), len(probes), again=lambda: timed_with_probes(server, send))


def assert_no_stall(timed: Timed, probe_within: float = PROBE_WITHIN_S, answer_within: float = ANSWER_WITHIN_S) -> None:
    """The costly request answered promptly, never with a 5xx, and no probe waited behind it;
    a bound exceeded is measured once more, and fails only if it is exceeded again."""
    assert timed.status < 500, timed.body[:500]
    first = ""
    if (timed.seconds >= answer_within or timed.slowest_probe >= probe_within) and timed.again is not None:
        first = f" (the first time {timed.seconds:.2f} s and a probe {timed.slowest_probe:.2f} s)"
        timed = timed.again()
        assert timed.status < 500, timed.body[:500]
    assert timed.seconds < answer_within, f"the costly request took {timed.seconds:.2f} s{first}"
    assert timed.slowest_probe < probe_within, f"a health probe took {timed.slowest_probe:.2f} s{first}"
