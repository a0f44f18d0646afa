"""Every existing mechanism on the ObjectiveAI face: `api` narrowing, reply sequences, expectations,
near misses and `--strict`, control headers, chaos and scripted failures in the face's shape, rate
limits and balances, pacing and stream faults, the journal, hot reload, and determinism."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control
from tests.scenarios.test_reload import edit_until, scenario_file
from tests.support.clients import API_KEY, sdk

from .examples import REQUEST_A, REQUEST_E, llm
from .wire_helpers import error_of, query, raw, raw_sse, stream

NANO = {"models": [llm("openai/gpt-5-nano", "generate", 1)], "weight": {"type": "static"}}


def ask(text: str, **more: object) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}], "model": NANO, **more}


def content(body: dict[str, object]) -> object:
    return body["choices"][0]["message"]["content"]  # type: ignore[index]


SAYS = """\
rules:
  - name: {name}
    match: {{api: {api}, last_user: {{contains: {word}}}}}
    reply:
      query:
        llms: [{{output: {{content: {text}}}}}]
"""


def says(name: str, word: str, text: str, api: str = "objectiveai") -> str:
    return SAYS.format(name=name, api=api, word=word, text=text)


def test_api_narrows_rules_to_a_face(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: chat-only
            match: {api: chat, last_user: {contains: both}}
            reply: {content: from chat}
          - name: query-only
            match: {api: objectiveai, last_user: {contains: both}}
            reply:
              query:
                llms: [{output: {content: from query}}]
        """)
    answer = raw(server, "s", ask("both"))
    assert answer.headers["x-emulator-rule"] == "query-only" and content(answer.json()) == "from query"
    with sdk(server, "s") as chat:
        reply = chat.chat.completions.with_raw_response.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "both"}]
        )
    assert reply.headers["x-emulator-rule"] == "chat-only"
    assert reply.parse().choices[0].message.content == "from chat"


def test_a_query_rule_scripting_content_lends_it_to_the_generate_llms(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: lends
            match: {api: objectiveai, last_user: {contains: hi}}
            reply: {content: "hello {{ request.last_user }}"}
        """)
    body = query(server, "s", ask("hi there"))
    assert content(body) == "hello hi there" and body["choices"][0]["confidence"] == 1.0


def test_replies_are_a_sequence_per_session(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: counting
            match: {api: objectiveai}
            replies:
              - query: {llms: [{output: {content: one}}]}
              - query: {llms: [{output: {content: two}}]}
            then: error
        """)
    assert content(query(server, "a", ask("x"))) == "one"
    assert content(query(server, "a", ask("x"))) == "two"
    assert content(query(server, "b", ask("x"))) == "one"
    error_of(raw(server, "a", ask("x")), 400, "emulator_sequence_exhausted")


def test_a_scripted_template_is_rendered_over_the_request(make_server: MakeServer) -> None:
    server = make_server(says("echo", "echo", '"you said {{ request.last_user }}"'))
    assert content(query(server, "s", ask("echo me"))) == "you said echo me"


def test_unmet_expectations_are_reported(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: picky
            match: {api: objectiveai}
            expect: {system: {contains: reviewer}}
            reply:
              query: {llms: [{output: {content: ok}}]}
        """)
    answer = raw(server, "s", ask("anything"))
    assert answer.status == 200 and "system" in answer.headers["x-emulator-expectations"]
    [entry] = [e for e in control(server, "GET", "journal").json()["entries"] if e["rule"] == "picky"]
    assert entry["unmet_expectations"]


def test_strict_answers_404_no_match_with_the_nearest_rules(make_server: MakeServer) -> None:
    server = make_server(says("capital", "France", "Paris"), strict=True)
    text = error_of(raw(server, "s", ask("capital of Spain?")), 404, "emulator_no_match")
    assert "capital" in text
    unmatched = control(server, "GET", "journal/unmatched").json()
    assert unmatched["entries"][0]["near_misses"][0]["rule"] == "capital"


def test_without_a_rule_the_defaults_answer_unanimously(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    body = query(server, "s", ask("anything at all"))
    assert body["choices"][0]["confidence"] == 1.0 and content(body)


def test_the_journal_records_the_face(make_server: MakeServer) -> None:
    server = make_server(says("capital", "France", "Paris"))
    query(server, "s", ask("capital of France?"))
    [entry] = control(server, "GET", "journal?session=s").json()["entries"]
    assert entry["path"] == "/objectiveai/query/completions" and entry["api"] == "objectiveai"
    assert entry["rule"] == "capital" and entry["status"] == 200
    assert entry["body"]["messages"][0]["content"] == "capital of France?"


@pytest.mark.parametrize(("header", "status", "kind"), [("error=503", 503, None), ("error=429", 429, "rate_limit")])
def test_the_fault_header_errors_in_the_face_shape(
    make_server: MakeServer, header: str, status: int, kind: str | None
) -> None:
    server = make_server("rules: []\n")
    answer = raw(server, "s", ask("x"), headers={"X-Emulator-Fault": header})
    body = answer.json()
    assert answer.status == status and body["kind"] == "query" and set(body["error"]) == {"kind", "error"}
    if kind:
        assert body["error"]["kind"] == kind


def test_the_rule_header_forces_a_rule(make_server: MakeServer) -> None:
    server = make_server(says("capital", "France", "Paris"))
    answer = raw(server, "s", ask("unrelated"), headers={"X-Emulator-Rule": "capital"})
    assert content(answer.json()) == "Paris"


def test_rule_chaos_and_scripted_errors_use_the_face_shape(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: flaky
            match: {api: objectiveai, last_user: {contains: flaky}}
            chaos: {rate: 1.0, error: {status: 502}}
            reply: {query: {llms: [{output: {content: never}}]}}
          - name: broken
            match: {api: objectiveai, last_user: {contains: broken}}
            reply: {error: {status: 400, type: invalid_params, message: scripted}}
          - name: rawly
            match: {api: objectiveai, last_user: {contains: raw}}
            reply: {raw: {status: 418, body: "tea"}}
        """)
    error_of(raw(server, "s", ask("flaky")), 502, "no_provider_available")
    assert error_of(raw(server, "s", ask("broken")), 400, "invalid_request") == "scripted"
    answer = raw(server, "s", ask("raw"))
    assert (answer.status, answer.text) == (418, "tea")


def test_a_scripted_transport_fault_closes_the_connection(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: gone
            match: {api: objectiveai}
            reply: {fault: {kind: close}}
        """)
    with pytest.raises(Exception):  # noqa: B017 - the connection is closed without an answer
        raw(server, "s", ask("x"))
    [entry] = control(server, "GET", "journal?session=s").json()["entries"]
    assert entry["fault"] == "close"


def test_rate_limits_answer_429_in_the_face_shape(make_server: MakeServer) -> None:
    server = make_server("settings: {limits: {rpm: 1}}\nrules: []\n")
    assert raw(server, "s", ask("x")).status == 200
    answer = raw(server, "s", ask("x"))
    error_of(answer, 429, "rate_limit")
    assert answer.headers["retry-after"] == "60"


def test_a_spent_balance_answers_402_in_the_face_shape(make_server: MakeServer) -> None:
    server = make_server(f"settings: {{balances: {{{API_KEY}: 0}}}}\nrules: []\n")
    error_of(raw(server, "s", ask("x")), 402, "reject_no_credit")


def test_pacing_delays_the_stream(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: slow
            match: {api: objectiveai}
            reply:
              stream: {first_token_ms: 300}
              query: {llms: [{output: {content: slow}}]}
        """)
    started = time.monotonic()
    items = stream(server, "s", ask("x"))
    assert time.monotonic() - started >= 0.3
    assert items[0]["choices"][0]["delta"]["content"] == "slow"


def test_an_error_stream_fault_is_a_bare_item_not_an_error_chunk(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: breaks
            match: {api: objectiveai}
            reply:
              stream: {fault: {kind: error, after_chunks: 1, code: "503", message: upstream went away}}
              query: {llms: [{output: {content: a b c d}}]}
        """)
    answer, sse = raw_sse(server, "s", ask("x"))
    assert answer.status == 200 and not sse.done
    first, item = sse.chunks
    assert first["object"] == "chat.completion.chunk"
    assert item == {"code": 503, "message": "upstream went away"}


def test_a_disconnect_stream_fault_cuts_the_stream(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: cut
            match: {api: objectiveai}
            reply:
              stream: {fault: {kind: disconnect, after_chunks: 2}}
              query: {llms: [{output: {content: a b c d}}]}
        """)
    try:
        answer = raw(server, "s", {**ask("x"), "stream": True})
        assert "[DONE]" not in answer.text
    except Exception:  # noqa: BLE001 - a cut chunked body may also surface as a read error
        pass
    [entry] = control(server, "GET", "journal?session=s").json()["entries"]
    assert entry["fault"] == "disconnect" and entry["events_sent"] == 2


def test_a_reload_is_picked_up(make_server: MakeServer) -> None:
    server = make_server(says("v", "x", "v1"), watch=True)
    assert content(query(server, "s", ask("x"))) == "v1"
    path: Path = scenario_file(server)
    assert edit_until(path, says("v", "x", "v2"), lambda: content(query(server, "s", ask("x"))) == "v2")


def test_a_broken_query_script_fails_at_load_with_file_and_line(tmp_path: Path) -> None:
    from tests.support.shipped import load_paths
    from zenmux_emulator.foundation.errors import ScenarioError

    (tmp_path / "bad.yaml").write_text(
        "rules:\n  - name: bad\n    reply:\n      query:\n        llms:\n          - output: {vote: [{to: x, p: 0}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as caught:
        load_paths([tmp_path])
    [problem] = caught.value.problems
    assert problem.line == 6 and "p > 0" in problem.reason
    assert problem.path == "rules[0].reply.query.llms[0].output"


def test_same_seed_and_clock_give_the_same_bytes(make_server: MakeServer) -> None:
    first = make_server("rules: []\n", seed=11)
    second = make_server("rules: []\n", seed=11)
    other = make_server("rules: []\n", seed=12)
    a, b, c = (raw(s, "s", {**REQUEST_A, "stream": True}).text for s in (first, second, other))
    assert a == b and a != c
    unary = [raw(s, "s", REQUEST_E | {"messages": [{"role": "user", "content": "hi"}]}).text for s in (first, second)]
    assert unary[0] == unary[1]
