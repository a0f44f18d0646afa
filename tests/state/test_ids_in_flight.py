"""Issue 40, item 1: requests of one session in flight at once under `--state` each get their own
number, so their ids (a chat completion's `id`, a Responses `resp_…`, the generation id) never
repeat, on one instance, two instances and `--workers 2` alike, and are the same in a second run
with the same seed. Before, each request read the session's count when it opened and wrote it back
when it finished: 200 requests, 8 in flight, got 71–103 distinct ids, and four Responses posted at
once often shared one `resp_…`, stored with the last writer's input, so a `previous_response_id`
continued someone else's conversation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis

from tests.cli.test_cli import clean_env
from tests.conftest import MakeServer
from tests.state.helpers import ask, control
from tests.state.test_workers import origin, pids, said, serve  # noqa: F401  (serve: the fixture)
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.foundation.ids import completion_id
from zenmux_emulator.state.sessions import SESSION_HEADER

SEED = 7
COUNT, IN_FLIGHT = 200, 8
RESPONSES = "/api/v1/responses"
ECHO = 'rules:\n  - name: echo\n    match: {}\n    reply: {content: "began with {{ request.messages[0].content }}"}\n'
"""Every reply names the conversation's first message: a continuation shows which one it continued."""


def respond(origin: str, session: str, body: dict[str, Any]) -> Raw:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}", SESSION_HEADER: session}
    return http(
        origin + RESPONSES, json.dumps({"model": "openai/gpt-5", **body}).encode(), method="POST", headers=headers
    )


def fetch(origin: str, session: str, path: str) -> Raw:
    headers = {"Authorization": f"Bearer {API_KEY}", SESSION_HEADER: session}
    return http(origin + RESPONSES + "/" + path, headers=headers)


def said_text(answer: Raw) -> str:
    assert answer.status == 200, answer.text
    return "".join(
        part["text"] for item in answer.json()["output"] if item["type"] == "message" for part in item["content"]
    )


def generation_of(origin: str, session: str, i: int) -> str:
    """Request `i`: a chat completion (its `id`) or a Responses post (its `resp_…` less the prefix),
    in turn; both are the generation id, which the answer's header names too."""
    if i % 2:
        answer = respond(origin, session, {"input": f"hello {i}"})
        assert answer.status == 200, answer.text
        rid = answer.json()["id"]
        assert rid.startswith("resp_")
        generation = rid.removeprefix("resp_")
    else:
        answer = ask(origin, session, f"hello {i}")
        assert answer.status == 200, answer.text
        generation = answer.json()["id"]
    assert answer.headers["x-generation-id"] == generation
    return str(generation)


def ids_in_flight(origins: list[str], session: str) -> list[str]:
    """COUNT requests of one session, IN_FLIGHT at a time, spread over the origins in turn."""
    with ThreadPoolExecutor(IN_FLIGHT) as pool:
        return list(pool.map(lambda i: generation_of(origins[i % len(origins)], session, i), range(COUNT)))


def assert_unique_and_repeatable(origins: list[str]) -> None:
    """200 distinct ids, those of positions 1–200 of the session with the seed (as in one process),
    and the same ones again once the session is reset."""
    expected = {completion_id(SEED, "ids", n) for n in range(1, COUNT + 1)}
    first = ids_in_flight(origins, "ids")
    assert len(set(first)) == COUNT, f"{len(set(first))} distinct ids of {COUNT}"
    assert set(first) == expected
    reset = control(origins[-1], "sessions/reset", {"session": "ids"})
    assert reset.status == 200, reset.text
    again = ids_in_flight(origins, "ids")
    assert set(again) == expected


Where = Callable[[MakeServer, str], list[str]]
PLACES: dict[str, Where] = {
    "one-instance": lambda make, url: [make(ECHO, state=url, seed=SEED).origin],
    "two-instances": lambda make, url: [make(ECHO, state=url, seed=SEED).origin for _ in range(2)],
}


def test_in_process_ids_are_the_positions_of_the_session(make_server: MakeServer):
    """The reference the shared state must give too: one process, the same numbers."""
    assert_unique_and_repeatable([make_server(ECHO, seed=SEED).origin])


@pytest.mark.parametrize("place", list(PLACES))
def test_requests_in_flight_on_one_session_get_distinct_repeatable_ids(
    make_server: MakeServer, redis_url: str, place: str
):
    assert_unique_and_repeatable(PLACES[place](make_server, redis_url))


def test_requests_in_flight_across_two_workers_get_distinct_repeatable_ids(
    serve: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    redis_url: str,
):
    folder = tmp_path / "echo"
    folder.mkdir()
    (folder / "echo.yaml").write_text(ECHO, encoding="utf-8")
    env = clean_env(ZENMUX_EMULATOR_WORKERS="2", ZENMUX_EMULATOR_STATE=redis_url)
    served = serve("--scenarios", str(folder), "--seed", str(SEED), env=env)
    said(served)
    assert len(pids(served, 2)) == 2
    assert_unique_and_repeatable([origin(served)])


def four_at_once(origins: list[str], make: Callable[[int], Raw]) -> list[Raw]:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(make, range(4)))


def assert_four_conversations(origins: list[str], session: str) -> None:
    """Four Responses posted at once, each read back and continued through another origin."""

    def where(i: int) -> str:
        return origins[i % len(origins)]

    posted = four_at_once(origins, lambda i: respond(where(i), session, {"input": f"{session} topic {i}"}))
    assert [said_text(answer) for answer in posted] == [f"began with {session} topic {i}" for i in range(4)]
    rids = [answer.json()["id"] for answer in posted]
    assert len(set(rids)) == 4, rids
    for i, rid in enumerate(rids):  # each is stored with its own input
        items = fetch(where(i + 1), session, rid + "/input_items")
        assert items.status == 200, items.text
        assert [part["text"] for item in items.json()["data"] for part in item["content"]] == [f"{session} topic {i}"]
        assert fetch(where(i + 1), session, rid).json()["id"] == rid
    continued = four_at_once(
        origins, lambda i: respond(where(i + 1), session, {"previous_response_id": rids[i], "input": "go on"})
    )
    assert [said_text(answer) for answer in continued] == [f"began with {session} topic {i}" for i in range(4)]
    assert len({answer.json()["id"] for answer in continued} | set(rids)) == 8


@pytest.mark.parametrize("place", list(PLACES))
def test_four_responses_posted_at_once_are_four_stored_conversations(
    make_server: MakeServer, redis_url: str, place: str
):
    origins = PLACES[place](make_server, redis_url)
    for attempt in range(5):  # each round on a session of its own: the four start at the same position
        assert_four_conversations(origins, f"four-{attempt}")


def input_of(origin: str, session: str, rid: str) -> list[str]:
    items = fetch(origin, session, rid + "/input_items")
    assert items.status == 200, items.text
    return [part["text"] for item in items.json()["data"] for part in item["content"]]


def test_a_stored_response_is_never_overwritten_by_another_request(make_server: MakeServer, redis_url: str):
    """Were a number ever made twice (here the session's count is gone from Redis, as a `maxmemory`
    eviction or an operator's `HDEL` would do), the second request's response does not replace the
    first's under their one id: the first conversation is still the one continued. Before, the
    second write replaced it."""
    at = make_server(ECHO, state=redis_url, seed=SEED).origin
    first = respond(at, "lost", {"input": "first"}).json()["id"]
    with redis.Redis.from_url(redis_url) as client:
        assert client.hdel("zenmux:session:lost", "arrivals") == 1
    second = respond(at, "lost", {"input": "second"})
    assert said_text(second) == "began with second" and second.json()["id"] == first  # the one id, made again
    assert input_of(at, "lost", first) == ["first"]
    assert said_text(respond(at, "lost", {"previous_response_id": first, "input": "go on"})) == "began with first"


async def forget(origin: str, count: int) -> None:
    """`count` requests, each of a session of its own (bodies the face refuses: the session is known
    once the key is checked)."""
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(headers=headers) as client:

        async def one(i: int) -> int:
            async with client.post(origin + RESPONSES, data=b"{}", headers={SESSION_HEADER: f"other-{i}"}) as answer:
                return answer.status

        for start in range(0, count, 500):
            statuses = await asyncio.gather(*(one(i) for i in range(start, min(start + 500, count))))
            assert set(statuses) == {400}


def test_a_session_forgotten_in_process_forgets_its_stored_responses(make_server: MakeServer):
    """In one process a session past the 10,000 most recently used is forgotten and starts over,
    as after a reset: its numbers make its old ids again, so its stored responses are forgotten
    with it, and its new ones are stored (not refused as another request's)."""
    at = make_server(ECHO, seed=SEED).origin
    first = respond(at, "old", {"input": "first"}).json()["id"]
    asyncio.run(forget(at, 10_000))
    second = respond(at, "old", {"input": "second"})
    assert said_text(second) == "began with second" and second.json()["id"] == first  # started over
    assert input_of(at, "old", first) == ["second"]
    assert said_text(respond(at, "old", {"previous_response_id": first, "input": "go on"})) == "began with second"
