"""Two instances on one Redis (`--state`) are one gateway for everything a session or the account
owns, not only sequences, limits and the journal (issue 44): the Platform API's account, a
session's standing fault, a thread's "continued once", ObjectiveAI's stored completions, their
training-table marks and validated Query Models, video jobs, and the inspector's live list, pushed
to a tab on either instance. Each test fails with any of them kept in the process that took the call."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import redis

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import VERSION, WEATHER_SCENARIO, WEATHER_TOOL, body, post
from tests.faces.objectiveai.examples import REQUEST_A
from tests.faces.objectiveai.wire_helpers import query, raw
from tests.faces.videos.helpers import SCENARIO as VIDEO_SCENARIO
from tests.faces.videos.helpers import advance, download, send, submit
from tests.state.helpers import SCENARIO, ask, content, control
from tests.support.clients import API_KEY, http
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer

APPLIED = APPLIED_HEADER.lower()
MANAGEMENT = "sk-mg-v1-test-management"
SUBSCRIPTION = "sk-ss-v1-test-subscription"
MONTH = "query_dimension=BIZ_MTH&query_time={month}"
TABS = 20
SHOWN_S = 1.0
"""The issue's bound: a tab on one instance shows a request the other answered within a second."""


def pair(make_server: MakeServer, redis_url: str, *yaml: str) -> tuple[EmulatorServer, EmulatorServer]:
    return make_server(*yaml, state=redis_url), make_server(*yaml, state=redis_url)


def platform(server: EmulatorServer, path: str) -> Any:
    reply = http(f"{server.base_url}/management/{path}", headers={"Authorization": f"Bearer {MANAGEMENT}"})
    assert reply.status == 200, reply.text
    return reply.json()["data"]


def test_a_completion_on_one_instance_moves_the_account_the_other_reports(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    before = platform(b, "payg/balance")
    served = ask(a.origin, "account", "step")
    assert content(served) == "one"
    month = time.strftime("%Y%m", time.gmtime(int(served.json()["created"])))
    after = platform(b, "payg/balance")
    assert after["total_credits"] < before["total_credits"]
    for reader in (a, b):  # both report the same account
        assert platform(reader, "payg/balance") == after
    usage = platform(b, f"usage?type=usage&{MONTH.format(month=month)}")
    cost = platform(b, f"cost?type=cost&{MONTH.format(month=month)}")
    assert usage == platform(a, f"usage?type=usage&{MONTH.format(month=month)}")
    assert cost == platform(a, f"cost?type=cost&{MONTH.format(month=month)}")
    tokens = served.json()["usage"]
    shown = json.dumps(usage)
    assert str(tokens["prompt_tokens"]) in shown and str(tokens["completion_tokens"]) in shown
    total = float(cost["summary"]["totalCost"])
    assert total > 0 and abs(total - (before["total_credits"] - after["total_credits"])) < 1e-6
    window = platform(b, "subscription/detail")["quota_5_hour"]
    assert window["resets_at"] is None
    assert content(ask(a.origin, "account", "step", key=SUBSCRIPTION)) == "two"  # spends Flows, not credits
    window = platform(b, "subscription/detail")["quota_5_hour"]
    assert window["used_flows"] > 0 and window["resets_at"] is not None
    assert platform(a, "subscription/detail")["quota_5_hour"] == window
    assert platform(b, "payg/balance") == after


def test_a_fault_set_through_one_instance_is_applied_by_the_other(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    assert control(a.origin, "misbehave", {"session": "faulty", "fault": "empty-response"}).status == 200
    assert control(b.origin, "misbehave").json()["sessions"]["faulty"]["fault"] == "empty-response"
    struck = ask(b.origin, "faulty", "step")
    assert struck.status == 200
    assert struck.headers[APPLIED] == "empty-response"
    assert APPLIED not in ask(b.origin, "other", "step").headers  # another session: no fault
    assert control(b.origin, "misbehave", {"session": "faulty", "fault": None}).status == 200
    assert APPLIED not in ask(a.origin, "faulty", "step").headers
    assert control(a.origin, "misbehave").json()["sessions"] == {}


def test_a_thread_continued_on_one_instance_is_refused_as_continued_on_the_other(
    make_server: MakeServer, redis_url: str
):
    a, b = pair(make_server, redis_url, WEATHER_SCENARIO)
    first = post(a, {**body("weather please"), "tools": [WEATHER_TOOL], "thread": {"type": "create"}}, "once")
    assert first.status == 200, first.text
    use = first.json()["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "foggy"}]}
    follow = {
        **body("x"),
        "messages": [result],
        "thread": {"type": "continue", "previous_message_id": first.json()["id"]},
    }
    assert post(a, follow, "once").status == 200
    again = post(b, follow, "once")
    assert again.status == 400, again.text
    assert "has already been continued" in again.json()["error"]["message"]
    assert control(b.origin, "sessions/reset", {"session": "once"}).status == 200
    assert post(a, follow, "once").status == 400  # the reset forgot the thread itself: no thread holds it


def test_an_objectiveai_completion_stored_through_one_instance_is_found_through_the_other(
    make_server: MakeServer, redis_url: str
):
    a, b = pair(make_server, redis_url, "rules: []\n")
    done = query(a, "s", REQUEST_A)
    base = f"/query/completions/{done['id']}"
    found = raw(b, None, None, path=base, method="GET")
    assert found.status == 200, found.text
    assert found.json()["response"]["id"] == done["id"]
    assert [item["id"] for item in raw(b, None, None, path="/query/completions", method="GET").json()["data"]] == [
        done["id"]
    ]
    wanted = done["choices"][0]["confidence_id"]
    assert raw(b, None, {"correct_confidence_id": wanted}, path=f"{base}/training_table").status == 204
    assert raw(a, None, None, path=base, method="GET").json()["correct_confidence_id"] == wanted
    model_id = done["model"].split("/")[-1]  # validated by A's request: B lists it, shows it and serves it by name
    assert raw(b, None, None, path="/query_models", method="GET").json() == {"data": [model_id]}
    assert raw(b, None, None, path=f"/query_models/{model_id}", method="GET").status == 200
    named = query(b, "s", {**REQUEST_A, "model": model_id})
    assert named["model"] == done["model"]


def test_health_reports_the_versions_each_instance_holds(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    assert control(a.origin, "scenarios?name=extra", b"rules: []\n").status in (200, 201)
    versions = [control(server.origin, "health").json()["versions"] for server in (a, b)]
    assert versions[0] == versions[1] and versions[0]["scenarios"] >= 1


async def read_rows(response: aiohttp.ClientResponse, wanted: str) -> float:
    """Rows read off a live list until one with this request id comes; when it came."""
    while True:
        line = await response.content.readline()
        assert line, "the live list ended"
        if line.startswith(b"data: ") and json.loads(line[6:]).get("request_id") == wanted:
            return time.monotonic()


def test_a_tab_on_one_instance_shows_a_request_the_other_answered_within_a_second(
    make_server: MakeServer, redis_url: str
):
    a, b = pair(make_server, redis_url, SCENARIO)

    async def run() -> float:
        async with aiohttp.ClientSession() as client:
            tab = await client.get(f"{b.origin}/_emulator/ui/events")
            assert tab.status == 200
            await asyncio.sleep(0.5)  # the tab's backlog sent, the feed subscribed
            sent = time.monotonic()
            answer = await asyncio.to_thread(ask, a.origin, "live", "step")
            shown = await asyncio.wait_for(read_rows(tab, answer.headers["x-zenmux-requestid"]), 30)
            tab.close()
            return shown - sent

    assert asyncio.run(run()) < SHOWN_S


def commands(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return sum(int(stat["calls"]) for name, stat in stats.items() if name != "cmdstat_info")


def test_twenty_idle_tabs_send_the_store_nothing(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)

    async def run(client: redis.Redis) -> tuple[int, bool]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            tabs = [await session.get(f"{b.origin}/_emulator/ui/events") for _ in range(TABS)]
            assert [tab.status for tab in tabs] == [200] * TABS
            await asyncio.sleep(3.0)  # past the look after subscribing
            before = commands(client)
            await asyncio.sleep(1.0)  # a quiet second
            idle = commands(client) - before
            answer = await asyncio.to_thread(ask, a.origin, "idle", "step")
            shown = await asyncio.wait_for(read_rows(tabs[-1], answer.headers["x-zenmux-requestid"]), 30)
            for tab in tabs:
                tab.close()
            return idle, shown > 0

    with redis.Redis.from_url(redis_url) as client:
        idle, shown = asyncio.run(run(client))
    assert idle == 0
    assert shown


def test_the_platform_limit_and_the_plan_are_the_same_account_on_both_instances(
    make_server: MakeServer, redis_url: str
):
    yaml = "settings:\n  account: {usage_rpm: 2}\n"
    a = make_server(yaml, state=redis_url, clock=None)  # a running clock: each instance starts at its own time
    time.sleep(0.05)
    b = make_server(yaml, state=redis_url, clock=None)
    usage = f"usage?type=usage&{MONTH.format(month='202601')}"
    assert platform(b, "subscription/detail")["plan"] == platform(a, "subscription/detail")["plan"]
    platform(a, usage)
    platform(b, usage)
    limited = http(f"{a.base_url}/management/{usage}", headers={"Authorization": f"Bearer {MANAGEMENT}"})
    assert limited.status == 429, limited.text
    assert limited.headers["retry-after"] == "60"


def stored_bytes(client: redis.Redis, pattern: str) -> int:
    return sum(int(client.hstrlen(key, field)) for key in client.keys(pattern) for field in client.hkeys(key))


def test_stored_objects_are_counted_by_bytes_in_redis_and_given_back_on_delete_and_reset(
    make_server: MakeServer, redis_url: str
):
    """The store bounds them as the process does (1,000 a session, 64 MiB in all; ObjectiveAI's
    completions 1,024 and 32 MiB): its byte counts follow every object kept, deleted and reset."""
    a, b = pair(make_server, redis_url, SCENARIO)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}", "X-Emulator-Session": "bytes"}
    made = [
        http(
            server.origin + "/api/v1/responses",
            json.dumps({"model": "openai/gpt-5.4-mini", "input": f"step {i}"}).encode(),
            method="POST",
            headers=headers,
        )
        for i, server in enumerate((a, b, a))
    ]
    assert [reply.status for reply in made] == [200] * 3
    query(b, "bytes", REQUEST_A)
    with redis.Redis.from_url(redis_url) as client:
        counted = int(client.get("zenmux:objects:bytes") or 0)
        assert counted == stored_bytes(client, "zenmux:responses:*") > 0
        assert int(client.get("zenmux:shelf:query_completions:bytes") or 0) == stored_bytes(
            client, "zenmux:shelf:query_completions:objects"
        )
        deleted = http(f"{b.origin}/api/v1/responses/{made[0].json()['id']}", method="DELETE", headers=headers)
        assert deleted.status == 200
        assert int(client.get("zenmux:objects:bytes") or 0) == stored_bytes(client, "zenmux:responses:*") < counted
        assert client.zcard("zenmux:objects:order") == 2
        assert control(a.origin, "sessions/reset", {"session": "bytes"}).status == 200
        assert int(client.get("zenmux:objects:bytes") or 0) == 0
        assert client.zcard("zenmux:objects:order") == client.zcard("zenmux:objects:order:bytes") == 0


def test_a_probe_of_a_continue_uses_nothing_up(make_server: MakeServer, redis_url: str):
    """`POST /_emulator/match` changes nothing: probing a `continue` leaves its one use to the client
    (before, the probe marked the message continued and the client's own `continue` was refused)."""
    a, b = pair(make_server, redis_url, WEATHER_SCENARIO)
    first = post(a, {**body("weather please"), "tools": [WEATHER_TOOL], "thread": {"type": "create"}}, "probe")
    assert first.status == 200, first.text
    use = first.json()["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "foggy"}]}
    follow = {
        **body("x"),
        "messages": [result],
        "thread": {"type": "continue", "previous_message_id": first.json()["id"]},
    }
    probe = {"path": "/api/anthropic/v1/messages", "body": follow, "session": "probe", "headers": VERSION}
    for server in (a, b):
        verdict = control(server.origin, "match", probe).json()
        assert verdict["accepted"] is True, verdict
    assert post(b, follow, "probe").status == 200


def test_a_video_job_submitted_to_one_instance_is_polled_and_downloaded_from_the_other(
    make_server: MakeServer, redis_url: str
):
    """A video job is on the shared store: the other instance answers its polls and makes the same
    video (before, it answered 404 `Video task … not found`)."""
    a, b = pair(make_server, redis_url, VIDEO_SCENARIO)
    created = submit(a, "a paper boat on a pond", resolution="480p", duration=1)
    assert created.status == 200, created.text
    job = created.json()
    polled = send(b, f"/api/v1/videos/{job['id']}")
    assert (polled.status, polled.json()) == (200, job)
    advance(a, 10)
    done = send(b, f"/api/v1/videos/{job['id']}").json()
    assert done["status"] == "succeeded"
    videos = [download(f"{server.origin}/api/v1/videos/{job['id']}/content") for server in (b, a)]
    assert videos[0][:2] == (200, "video/mp4") and videos[0] == videos[1]
