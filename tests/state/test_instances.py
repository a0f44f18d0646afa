"""Two emulator instances on one Redis (`--state`) act as one gateway when a client's requests
alternate between them: reply sequences, rate limits, balances, the clock, the control API, the
journal, stored responses and message threads are the same whichever instance answers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import WEATHER_SCENARIO, WEATHER_TOOL, body, post
from tests.state.helpers import LIMITED, SCENARIO, ask, content, control
from tests.support.bodies import chat_body
from tests.support.clients import API_KEY, http
from zenmux_emulator.faces.chat.request import ChatRequest
from zenmux_emulator.pytest_plugin.server import EmulatorServer


def pair(make_server: MakeServer, redis_url: str, *yaml: str) -> tuple[EmulatorServer, EmulatorServer]:
    return make_server(*yaml, state=redis_url), make_server(*yaml, state=redis_url)


def test_429_twice_then_success_holds_whichever_instance_answers(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    answers = [ask(server.origin, "flaky", "flaky please") for server in (a, b, a)]
    assert [answer.status for answer in answers] == [429, 429, 200]
    assert content(answers[2]) == "at last"


def test_alternating_instances_answer_byte_for_byte_as_one_process(make_server: MakeServer, redis_url: str):
    alone = make_server(SCENARIO)
    a, b = pair(make_server, redis_url, SCENARIO)
    single = [ask(alone.origin, "steps", "step") for _ in range(4)]
    shared = [ask(server.origin, "steps", "step") for server in (a, b, b, a)]
    assert [content(answer) for answer in shared] == ["one", "two", "three", "three"]
    assert [answer.text for answer in shared] == [answer.text for answer in single]  # ids and all
    assert [answer.headers["x-zenmux-requestid"] for answer in shared] == [
        answer.headers["x-zenmux-requestid"] for answer in single
    ]


def test_rate_limits_count_every_instance_and_follow_the_shared_clock(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, LIMITED)
    answers = [ask(server.origin, "rpm", "hello") for server in (a, b, a)]
    assert [answer.headers["x-ratelimit-remaining-requests"] for answer in answers] == ["2", "1", "0"]
    limited = ask(b.origin, "rpm", "hello")
    assert limited.status == 429
    assert limited.headers["retry-after"] == "20"  # one request refills in 60 / 3 s
    assert control(a.origin, "clock", {"advance": 20}).status == 200
    assert control(b.origin, "clock").json()["now"] == control(a.origin, "clock").json()["now"]
    again = ask(b.origin, "rpm", "hello")
    assert again.status == 200
    assert again.headers["x-ratelimit-remaining-requests"] == "0"


def test_a_balance_is_spent_across_instances(make_server: MakeServer, redis_url: str):
    prompt = ChatRequest.of(chat_body("hello", "acme/pricey")).prompt_tokens
    price = 0.4 * 1_000_000 / prompt  # every request costs 0.4
    yaml = f"""
settings:
  balances: {{sk-paid: 1.0}}
models:
  acme/pricey: {{display_name: Pricey, context_length: 100000, pricing: {{prompt: {price}, completion: 0}}}}
"""
    a, b = pair(make_server, redis_url, yaml)
    answers = [ask(server.origin, "paid", "hello", key="sk-paid", model="acme/pricey") for server in (a, b, a, b)]
    assert [answer.status for answer in answers] == [200, 200, 200, 402]
    assert [round(float(answer.headers["x-emulator-balance"]), 6) for answer in answers[:3]] == [0.6, 0.2, -0.2]
    assert answers[3].json()["error"]["type"] == "reject_no_credit"


def test_the_journal_shows_every_request_of_both_instances(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    sent = [ask(server.origin, "journal", f"step {i}") for i, server in enumerate((a, b, a, b))]
    for server in (a, b):
        journal = control(server.origin, "journal?session=journal").json()
        assert journal["count"] == 4
        assert [e["request_id"] for e in journal["entries"]] == [s.headers["x-zenmux-requestid"] for s in sent]
        assert [e["body"]["messages"][0]["content"] for e in journal["entries"]] == [f"step {i}" for i in range(4)]
        assert all(e["status"] == 200 and e["rule"] == "steps" for e in journal["entries"])
    assert control(b.origin, "health").json()["journal"]["entries"] == 4
    assert control(a.origin, "journal?session=journal", method="DELETE").json() == {"cleared": 4}
    assert control(b.origin, "journal").json()["count"] == 0


def test_scenarios_and_resets_from_one_instance_reach_the_other(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    added = control(
        a.origin,
        "scenarios?name=extra",
        b"rules: [{name: extra, match: {last_user: {contains: extra}}, "
        b"replies: [{content: first}, {content: second}]}]",
        **{"Content-Type": "application/yaml"},
    )
    assert added.status == 201, added.text
    assert content(ask(b.origin, "api", "extra")) == "first"
    assert content(ask(a.origin, "api", "extra")) == "second"
    listed = control(b.origin, "scenarios?session=api").json()
    assert [r["hits"] for r in listed["rules"] if r["name"] == "extra"] == [{"total": 2, "session": 2}]
    assert control(b.origin, "sessions/reset", {"session": "api"}).json() == {"session": "api", "reset": 1}
    assert content(ask(a.origin, "api", "extra")) == "first"
    assert control(b.origin, "scenarios/extra", method="DELETE").status == 200
    assert ask(a.origin, "api", "extra").json()["choices"][0]["message"]["content"] != "second"
    assert control(a.origin, "sessions/reset", {"session": "nobody"}).status == 404


def test_a_stored_response_is_read_and_continued_on_the_other_instance(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}", "X-Emulator-Session": "stored"}
    created = http(
        a.origin + "/api/v1/responses",
        json.dumps({"model": "openai/gpt-5.4-mini", "input": "step"}).encode(),
        method="POST",
        headers=headers,
    )
    assert created.status == 200, created.text
    rid = created.json()["id"]
    fetched = http(f"{b.origin}/api/v1/responses/{rid}", headers=headers)
    assert fetched.status == 200
    assert fetched.json() == created.json()
    follow = {"model": "openai/gpt-5.4-mini", "input": "step again", "previous_response_id": rid}
    continued = http(b.origin + "/api/v1/responses", json.dumps(follow).encode(), method="POST", headers=headers)
    assert continued.status == 200, continued.text
    assert continued.json()["previous_response_id"] == rid
    deleted = http(f"{b.origin}/api/v1/responses/{rid}", method="DELETE", headers=headers)
    assert deleted.json()["deleted"] is True
    assert http(f"{a.origin}/api/v1/responses/{rid}", headers=headers).status == 404
    unknown = {**follow, "previous_response_id": "resp_unknown"}
    refused = http(a.origin + "/api/v1/responses", json.dumps(unknown).encode(), method="POST", headers=headers)
    assert refused.status == 400
    assert "resp_unknown" in refused.json()["error"]["message"]


def test_a_stream_is_saved_before_it_is_sent_and_journaled_whole(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {API_KEY}",
        "X-Emulator-Session": "streams",
    }
    streamed = http(
        a.origin + "/api/v1/chat/completions",
        json.dumps(chat_body("step", stream=True)).encode(),
        method="POST",
        headers=headers,
    )
    assert streamed.status == 200
    assert '"content":"one"' in streamed.text.replace(" ", "")
    assert content(ask(b.origin, "streams", "step")) == "two"
    [entry, _] = control(b.origin, "journal?session=streams").json()["entries"]
    assert entry["stream"] is True
    assert entry["events_sent"] == len(entry["response"]) > 2
    assert entry["response"][-1].startswith("data: [DONE]")


def test_a_reload_through_one_instance_reaches_the_other(make_server: MakeServer, redis_url: str):
    a = make_server(SCENARIO, state=redis_url)
    folder = a.settings.scenarios[0]
    b = make_server(state=redis_url, scenarios=[folder])
    assert ask(b.origin, "reload", "fresh").json()["choices"][0]["message"]["content"] != "new rule"
    (Path(folder) / "new.yaml").write_text(
        "rules: [{name: fresh, match: {last_user: fresh}, reply: {content: new rule}}]\n", encoding="utf-8"
    )
    assert control(a.origin, "scenarios/reload", {}).status == 200
    assert content(ask(b.origin, "reload", "fresh")) == "new rule"
    assert "fresh" in [rule["name"] for rule in control(b.origin, "scenarios").json()["rules"]]


def test_resetting_every_session_restarts_every_sequence_everywhere(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, SCENARIO)
    for session in ("one", "two"):
        assert content(ask(a.origin, session, "step")) == "one"
    assert control(b.origin, "sessions/reset", {}).json() == {"session": None, "reset": 2}
    assert [content(ask(b.origin, session, "step")) for session in ("one", "two")] == ["one", "one"]


def test_a_message_thread_is_continued_on_the_other_instance(make_server: MakeServer, redis_url: str):
    a, b = pair(make_server, redis_url, WEATHER_SCENARIO)
    first = post(a, {**body("weather please"), "tools": [WEATHER_TOOL], "thread": {"type": "create"}}, "threads")
    assert first.status == 200, first.text
    use = first.json()["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "foggy"}]}
    follow = {
        **body("x"),
        "messages": [result],
        "thread": {"type": "continue", "previous_message_id": first.json()["id"]},
    }
    continued = post(b, follow, "threads")
    assert continued.status == 200, continued.text
    assert continued.json()["content"][-1]["text"] == "Paris is foggy today."
    assert post(b, follow, "elsewhere").status == 400  # threads are per session
