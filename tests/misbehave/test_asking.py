"""How a fault is asked for (header, session, rule, server), which ask wins, seeded draws that
repeat byte for byte, the catalogue endpoint, and what the emulator says when a fault has no
handle on a request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import FROZEN, SHIPPED
from tests.misbehave.helpers import CHAT_TOOLS, OPENAI_MODEL, TOOL
from tests.support.clients import API_KEY, Raw, http
from tests.support.polling import wait_for
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER, CATALOGUE, HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.server.inspector.rows import row
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.sessions import SESSION_HEADER

APPLIED = APPLIED_HEADER.lower()


def body(text: str, *, tools: bool = True, stream: bool = False) -> dict[str, Any]:
    made: dict[str, Any] = {"model": OPENAI_MODEL, "messages": [{"role": "user", "content": text}], "stream": stream}
    if tools:
        made.update(tools=CHAT_TOOLS, tool_choice={"type": "function", "function": {"name": TOOL}})
    return made


def post(server: EmulatorServer, payload: dict[str, Any], session: str, **headers: str) -> Raw:
    sent = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {API_KEY}",
        SESSION_HEADER: session,
        **headers,
    }
    return http(server.base_url + "/chat/completions", json.dumps(payload).encode(), method="POST", headers=sent)


def control(server: EmulatorServer, method: str, path: str, payload: Any = None) -> Raw:
    data = None if payload is None else json.dumps(payload).encode()
    return http(
        f"{server.origin}/_emulator{path}",
        data,
        method=method,
        headers={"Content-Type": "application/json"} if data else {},
    )


def serve(**settings: Any) -> EmulatorServer:
    return EmulatorServer(
        Settings(port=0, scenarios=[str(SHIPPED / "misbehaving.yaml")], clock=FROZEN, watch=False, **settings)
    )


@pytest.fixture(scope="module")
def server_wide() -> Iterator[EmulatorServer]:
    with serve(misbehave=["content-filter:1"]) as running:
        yield running


def finished(server: EmulatorServer, session: str) -> list[Any]:
    return wait_for(lambda: [e for e in server.state.journal.entries(session=session) if e.finished is not None])


# seeded draws --------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_bytes_and_other_seeds_other_variants() -> None:
    ask = {HEADER: "tool-args-schema-violation"}  # the variant is drawn
    streamed: list[bytes] = []
    variants = set()
    for seed in (1, 1, 2, 3, 4, 5):
        with serve(seed=seed) as running:
            answer = post(running, body("weather", stream=True), "same", **ask)
            assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
            assert answer.text.endswith("data: [DONE]\n\n")
            streamed.append(answer.text.encode())
            variants.add(answer.headers[APPLIED])
    assert streamed[0] == streamed[1]  # seed 1 twice: byte for byte
    assert len(set(streamed)) == 5
    assert len(variants) > 1, variants


def test_a_rule_rate_and_times_are_seeded_per_session(server: EmulatorServer) -> None:
    def pattern(session: str) -> list[bool]:
        return [APPLIED in post(server, body("sometimes refuse", tools=False), session).headers for _ in range(12)]

    first = pattern("agent")
    assert control(server, "POST", "/sessions/reset", {"session": "agent"}).status == 200
    assert pattern("agent") == first  # the same session, replayed: the same requests misbehave
    assert [i for i, hit in enumerate(first) if hit] == [7, 10]  # rate 0.34 struck at 7, 10 and 11; times 2
    refusals = [
        json.loads(e.response)["choices"][0]["message"]["refusal"]
        for e in finished(server, "agent")
        if e.misbehaved is not None
    ]
    assert len(refusals) == 4 and all(refusals)


# precedence ----------------------------------------------------------------------------------


def test_the_header_wins_over_the_session_and_the_rule(server: EmulatorServer) -> None:
    assert control(server, "POST", "/misbehave", {"session": "order", "fault": "empty-response"}).status == 200
    try:
        by_header = post(server, body("broken arguments"), "order", **{HEADER: "refusal"})
        by_session = post(server, body("broken arguments"), "order")
    finally:
        assert control(server, "POST", "/misbehave", {"session": "order", "fault": None}).status == 200
    by_rule = post(server, body("broken arguments"), "order")
    assert [a.headers[APPLIED] for a in (by_header, by_session, by_rule)] == [
        "refusal",
        "empty-response",
        "tool-args-invalid-json;trailing-comma",
    ]
    sources = [e.misbehaved.as_dict()["source"] for e in finished(server, "order")]
    assert sources == ["header", "session", "rule"]


def test_the_server_wide_fault_is_last(server_wide: EmulatorServer) -> None:
    plain = post(server_wide, body("hello", tools=False), "wide")
    ruled = post(server_wide, body("refuse to answer", tools=False), "wide")
    assert plain.headers[APPLIED] == "content-filter"
    assert plain.json()["choices"][0]["finish_reason"] == "content_filter"
    assert ruled.headers[APPLIED] == "refusal"
    assert [e.misbehaved.as_dict()["source"] for e in finished(server_wide, "wide")] == ["server", "rule"]


def test_no_control_headers_ignores_the_header() -> None:
    with serve(control_headers=False) as running:
        answer = post(running, body("hello"), "quiet", **{HEADER: "refusal"})
    assert answer.status == 200 and APPLIED not in answer.headers


# the catalogue and bad asks ------------------------------------------------------------------


def test_the_catalogue_lists_every_fault_with_its_variants(server_wide: EmulatorServer) -> None:
    listed = control(server_wide, "GET", "/misbehave").json()
    assert [f["fault"] for f in listed["faults"]] == list(CATALOGUE)
    by_name = {f["fault"]: f for f in listed["faults"]}
    assert by_name["tool-args-invalid-json"]["variants"] == ["truncated", "trailing-comma", "single-quotes"]
    assert listed["precedence"] == ["header", "session", "rule", "server"]
    assert listed["server"] == ["content-filter:1"] and listed["header"] == HEADER


@pytest.mark.parametrize(
    ("payload", "named"),
    [
        ({"session": "s", "fault": "hallucinate"}, "Parameter fault"),
        ({"session": "s", "fault": "refusal", "variant": "polite"}, "Parameter variant"),
        ({"fault": "refusal"}, "Parameter session"),
        ({"session": "s", "fault": "refusal", "rate": 2}, "Parameter rate"),
        ({"session": "s", "fault": "refusal", "times": 2}, "times"),
    ],
)
def test_a_bad_session_ask_is_a_400_naming_the_field(server: EmulatorServer, payload: Any, named: str) -> None:
    answer = control(server, "POST", "/misbehave", payload)
    assert answer.status == 400 and named in answer.json()["error"]["message"], answer.text


def test_a_bad_header_is_the_faces_400_naming_it(server: EmulatorServer) -> None:
    answer = post(server, body("hello"), "bad-header", **{HEADER: "tool-args-invalid-json;double-quotes"})
    assert answer.status == 400
    message = answer.json()["error"]["message"]
    assert HEADER in message and "double-quotes" in message and "trailing-comma" in message


def test_an_unknown_fault_in_a_rule_fails_at_load_with_its_line(server: EmulatorServer) -> None:
    text = "rules:\n  - name: r\n    misbehave: {fault: hallucinate}\n    reply: {content: x}\n"
    answer = http(
        f"{server.origin}/_emulator/scenarios?name=bad-fault",
        text.encode(),
        method="POST",
        headers={"Content-Type": "application/yaml"},
    )
    assert answer.status == 400, answer.text
    [problem] = answer.json()["error"]["problems"]
    assert (problem["line"], problem["path"]) == (3, "rules[0].misbehave")
    assert problem["reason"].startswith("unknown fault 'hallucinate'; known: tool-args-invalid-json")


# no handle -----------------------------------------------------------------------------------


def test_a_fault_without_a_handle_is_warned_of_and_not_claimed(server: EmulatorServer) -> None:
    no_tools = post(server, body("hello", tools=False), "handle", **{HEADER: "tool-call-id-duplicate"})
    tools = [{"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}]
    no_enum = post(
        server,
        {**body("hello", tools=False), "tools": tools},
        "handle",
        **{HEADER: "tool-args-schema-violation;enum-mismatch"},
    )
    for answer in (no_tools, no_enum):
        assert answer.status == 200 and APPLIED not in answer.headers
    entries = finished(server, "handle")
    assert all(e.misbehaved is None for e in entries)
    assert "needs a tool call" in entries[0].warnings[-1]
    assert "its schema allows it" in entries[1].warnings[-1]
    assert "sent as drafted" in no_enum.headers["x-emulator-warnings"]


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (["hallucinate:0.1"], "unknown fault 'hallucinate'"),
        (["refusal:lots"], "must be a number"),
        (["refusal:1.5"], "not between 0 and 1"),
        (["refusal:0.6", "empty-response:0.6"], "add up to 1.2"),
    ],
)
def test_a_bad_server_wide_fault_is_refused_at_start(given: list[str], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Settings(misbehave=given)


def test_objectiveai_answers_from_its_script_and_warns(server: EmulatorServer) -> None:
    query = {
        "messages": [{"role": "user", "content": "capital of France?"}],
        "model": {
            "models": [{"id": "openai/gpt-5-nano", "mode": "generate", "weight": {"type": "static", "weight": 1}}],
            "weight": {"type": "static"},
        },
    }
    answer = http(
        f"{server.origin}/objectiveai/query/completions",
        json.dumps(query).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {API_KEY}",
            SESSION_HEADER: "query",
            HEADER: "refusal",
        },
    )
    assert answer.status == 200 and APPLIED not in answer.headers
    [entry] = finished(server, "query")
    assert entry.misbehaved is None
    assert "not shown on the objectiveai face" in entry.warnings[-1]


def test_the_inspector_row_names_the_fault(server: EmulatorServer) -> None:
    post(server, body("weather"), "inspected", **{HEADER: "tool-args-invalid-json;truncated"})
    [entry] = finished(server, "inspected")
    assert row(entry.as_dict())["misbehaved"] == "tool-args-invalid-json;truncated"
