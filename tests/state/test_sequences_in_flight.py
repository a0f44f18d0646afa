"""Issue 31, item 3: requests of one session in flight at once under `--state` each take their own
position of a reply sequence, on one instance, two instances and `--workers 2` alike: every step
is served exactly once (before, two requests both read position k, both served step k, and step
k+1 was never served: "429 twice, then succeed" became "429 twice, then succeed twice")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import clean_env
from tests.conftest import MakeServer
from tests.state.helpers import SCENARIO, ask, content
from tests.state.test_workers import origin, pids, said, serve  # noqa: F401  (serve: the fixture)

STEPS = 60
SEQUENCE = (
    "rules:\n  - name: steps\n    match: {last_user: {contains: step}}\n    replies:\n"
    + "".join(f"      - content: step {i}\n" for i in range(STEPS))
    + "    then: error\n"
)
FLAKY = SCENARIO.split("  - name: steps")[0] + "    then: error\n"
"""The shared scenario's `flaky` rule, ending: a fourth request is a 400, so a repeated step shows."""


def served_in_flight(origins: list[str], session: str, text: str, count: int, in_flight: int) -> list[Any]:
    """`count` requests of one session, `in_flight` at a time, spread over the origins in turn."""
    with ThreadPoolExecutor(in_flight) as pool:
        return list(pool.map(lambda i: ask(origins[i % len(origins)], session, text), range(count)))


def assert_every_step_once(origins: list[str], in_flight: int) -> None:
    answers = served_in_flight(origins, f"steps-{in_flight}", "step", STEPS, in_flight)
    served = Counter(content(answer) for answer in answers)
    assert served == Counter(f"step {i}" for i in range(STEPS)), served.most_common(3)
    after = ask(origins[0], f"steps-{in_flight}", "step")
    assert after.status == 400 and after.json()["error"]["type"] == "emulator_sequence_exhausted"


def assert_flaky_succeeds_once(origins: list[str], in_flight: int) -> None:
    answers = served_in_flight(origins, f"flaky-{in_flight}", "flaky", 3 + in_flight, in_flight)
    assert Counter(answer.status for answer in answers) == Counter({429: 2, 200: 1, 400: in_flight})


Where = Callable[[MakeServer, str], list[str]]
PLACES: dict[str, Where] = {
    "one-instance": lambda make, url: [make(SEQUENCE, FLAKY, state=url).origin],
    "two-instances": lambda make, url: [make(SEQUENCE, FLAKY, state=url).origin for _ in range(2)],
}


@pytest.mark.parametrize("in_flight", [2, 4])
@pytest.mark.parametrize("place", list(PLACES))
def test_requests_in_flight_on_one_session_serve_every_step_once(
    make_server: MakeServer, redis_url: str, place: str, in_flight: int
):
    origins = PLACES[place](make_server, redis_url)
    assert_every_step_once(origins, in_flight)
    assert_flaky_succeeds_once(origins, in_flight)


@pytest.mark.parametrize("in_flight", [2, 4])
def test_requests_in_flight_across_two_workers_serve_every_step_once(
    serve: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    redis_url: str,
    in_flight: int,
):
    folder = tmp_path / "sequences"
    folder.mkdir()
    (folder / "steps.yaml").write_text(SEQUENCE, encoding="utf-8")
    (folder / "flaky.yaml").write_text(FLAKY, encoding="utf-8")
    served = serve(
        "--scenarios", str(folder), env=clean_env(ZENMUX_EMULATOR_WORKERS="2", ZENMUX_EMULATOR_STATE=redis_url)
    )
    said(served)
    assert len(pids(served, 2)) == 2
    assert_every_step_once([origin(served)], in_flight)
    assert_flaky_succeeds_once([origin(served)], in_flight)
