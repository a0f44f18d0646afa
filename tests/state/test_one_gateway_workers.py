"""`--workers 2` on one Redis is one gateway for the account, a session's standing fault, a
thread's "continued once" and ObjectiveAI's stored completions (issue 44), whichever worker takes
each request: every request goes on a new connection, and both workers are seen answering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.faces.anthropic.helpers import VERSION, WEATHER_SCENARIO, WEATHER_TOOL, body
from tests.faces.objectiveai.examples import REQUEST_A
from tests.state.helpers import ask, content, control
from tests.state.test_workers import origin, pids, scenarios, serve  # noqa: F401  # the fixtures
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER
from zenmux_emulator.state.sessions import SESSION_HEADER

TRIES = 12
"""Requests per check, each on a new connection: both workers answer some of them."""
MANAGEMENT = "sk-mg-v1-test-management"


def post(base: str, path: str, payload: Any, session: str) -> Raw:
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json", SESSION_HEADER: session}
    headers.update(VERSION)
    return http(base + path, json.dumps(payload).encode(), method="POST", headers=headers)


def test_two_workers_share_the_account_faults_threads_and_stored_completions(
    serve: Any,  # noqa: F811
    scenarios: Path,  # noqa: F811
    redis_url: str,
):
    (scenarios / "weather.yaml").write_text(WEATHER_SCENARIO, encoding="utf-8")
    served = serve("--scenarios", str(scenarios), "--workers", "2", "--state", redis_url)
    base = origin(served)
    assert len(pids(served, 2)) == 2
    management = {"Authorization": f"Bearer {MANAGEMENT}"}

    def balance() -> float:
        reply = http(base + "/api/v1/management/payg/balance", headers=management)
        assert reply.status == 200, reply.text
        return float(reply.json()["data"]["total_credits"])

    before = {balance() for _ in range(TRIES)}
    assert len(before) == 1
    assert content(ask(base, "w-account", "step")) == "one"
    after = {balance() for _ in range(TRIES)}
    assert len(after) == 1 and after.pop() < before.pop()

    assert control(base, "misbehave", {"session": "w-fault", "fault": "empty-response"}).status == 200
    struck = [ask(base, "w-fault", "step").headers.get(APPLIED_HEADER.lower()) for _ in range(TRIES)]
    assert struck == ["empty-response"] * TRIES

    first = post(
        base,
        "/api/anthropic/v1/messages",
        {**body("weather please"), "tools": [WEATHER_TOOL], "thread": {"type": "create"}},
        "w-thread",
    )
    assert first.status == 200, first.text
    use = first.json()["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "foggy"}]}
    follow = {
        **body("x"),
        "messages": [result],
        "thread": {"type": "continue", "previous_message_id": first.json()["id"]},
    }
    statuses = [post(base, "/api/anthropic/v1/messages", follow, "w-thread").status for _ in range(TRIES)]
    assert statuses == [200] + [400] * (TRIES - 1)

    done = post(base, "/objectiveai/query/completions", REQUEST_A, "w-query")
    assert done.status == 200, done.text
    name = done.json()["id"]
    found = [
        http(f"{base}/objectiveai/query/completions/{name}", headers={"Authorization": f"Bearer {API_KEY}"})
        for _ in range(TRIES)
    ]
    assert [reply.status for reply in found] == [200] * TRIES
