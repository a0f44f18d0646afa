"""Which rules answer Query requests (spec §5), over HTTP: only rules with `api: objectiveai`, never
chat rules (no `api`, or `api: zenmux`), else the §5 defaults; the Query match keys `query_model`
and `query_llms`; and the keys refused at load in a Query rule, located as schema problems are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control
from tests.support.clients import sdk
from tests.support.shipped import load_paths
from zenmux_emulator.foundation.errors import ScenarioError

from .examples import REQUEST_A, REQUEST_D, llm
from .wire_helpers import error_of, raw

NANO = {"models": [llm("openai/gpt-5-nano", "generate", 1)], "weight": {"type": "static"}}
NANO_ID = "3F2o5YVo5IxSoQP109NScj"


def ask(text: str, model: object = NANO) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}], "model": model}


def chat_content(server: object, text: str) -> tuple[str | None, str | None]:
    with sdk(server, "s") as chat:  # type: ignore[arg-type]
        reply = chat.chat.completions.with_raw_response.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": text}]
        )
    return reply.headers.get("x-emulator-rule"), reply.parse().choices[0].message.content


@pytest.mark.parametrize("api", ["", "api: zenmux, ", "api: [chat, responses], "])
def test_a_chat_rule_never_answers_a_query_request(make_server: MakeServer, api: str) -> None:
    server = make_server(f"""\
        rules:
          - name: chatty
            match: {{{api}last_user: {{contains: hello}}}}
            reply: {{content: from the chat rule}}
        """)
    answer = raw(server, "s", ask("hello"))
    assert answer.status == 200 and "x-emulator-rule" not in answer.headers
    assert answer.json()["choices"][0]["message"]["content"] != "from the chat rule"
    assert answer.json()["choices"][0]["confidence"] == 1.0  # the §5 defaults: unanimous
    assert chat_content(server, "hello") == ("chatty", "from the chat rule")


def test_a_chat_rule_shows_as_a_near_miss_naming_the_face(make_server: MakeServer) -> None:
    server = make_server(
        """\
        rules:
          - name: chatty
            match: {last_user: {contains: hello}}
            reply: {content: from the chat rule}
        """,
        strict=True,
    )
    text = error_of(raw(server, "s", ask("hello")), 404, "emulator_no_match")
    assert (
        "chatty" in text
        and "any face but embeddings or imagen or images or objectiveai or rerank or speech or systemone or transcription or videos"
        in text
    )
    [entry] = control(server, "GET", "journal/unmatched").json()["entries"]
    assert entry["near_misses"][0]["misses"] == [
        {
            "key": "api",
            "expected": "any face but embeddings or imagen or images or objectiveai or rerank or speech or systemone or transcription or videos",
            "actual": "objectiveai",
        }
    ]


def test_a_chat_rule_keeps_its_match_summary(make_server: MakeServer) -> None:
    server = make_server("rules:\n  - name: chatty\n    match: {last_user: hello}\n    reply: {content: hi}\n")
    [rule] = control(server, "GET", "scenarios").json()["rules"]
    assert rule["match"] == {"last_user": "contains 'hello'"}


def test_query_model_matches_a_glob_on_the_query_model_id(make_server: MakeServer) -> None:
    server = make_server(f"""\
        rules:
          - name: nano-only
            match: {{api: objectiveai, query_model: "{NANO_ID[:4]}*"}}
            reply: {{query: {{llms: [{{output: {{content: nano}}}}]}}}}
        """)
    answer = raw(server, "s", ask("x"))
    assert answer.headers["x-emulator-rule"] == "nano-only"
    assert answer.json()["choices"][0]["message"]["content"] == "nano"
    other = raw(server, "s", REQUEST_A)
    assert "x-emulator-rule" not in other.headers
    [miss] = [e for e in control(server, "GET", "journal?session=s").json()["entries"] if e["rule"] is None]
    assert miss["near_misses"][0]["misses"][0]["key"] == "query_model"


def test_query_llms_need_every_glob_to_name_an_llm_of_the_model(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: openai-and-google
            match: {api: objectiveai, query_llms: ["openai/*", "google/*"]}
            reply: {query: {llms: [{output: {content: mixed}}]}}
        """)
    assert raw(server, "s", REQUEST_A).headers["x-emulator-rule"] == "openai-and-google"
    assert "x-emulator-rule" not in raw(server, "s", ask("x")).headers  # openai only
    assert raw(server, "s", REQUEST_D).headers["x-emulator-rule"] == "openai-and-google"  # select LLMs count too
    entries = control(server, "GET", "journal?session=s").json()["entries"]
    assert [e["rule"] for e in entries] == ["openai-and-google", None, "openai-and-google"]


@pytest.mark.parametrize("key", ["model: openai/*", "tool_choice: auto", "tool_result: true", "metadata: {a: b}"])
@pytest.mark.parametrize("api", ["objectiveai", "[chat, objectiveai]"])
def test_chat_keys_are_refused_in_a_query_rule(tmp_path: Path, key: str, api: str) -> None:
    (tmp_path / "rules.yaml").write_text(
        f"rules:\n  - name: q\n    match:\n      api: {api}\n      {key}\n    reply: {{query: {{llms: []}}}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as caught:
        load_paths([tmp_path])
    [problem] = caught.value.problems
    name = key.split(":")[0]
    assert problem.line == 5 and problem.column == 7 and problem.path == f"rules[0].match.{name}"
    assert "objectiveai" in problem.reason


def test_chat_keys_are_refused_in_the_expect_of_a_query_rule(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "rules:\n  - name: q\n    match: {api: objectiveai}\n    expect:\n      model: x/y\n"
        "    reply: {query: {llms: []}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as caught:
        load_paths([tmp_path])
    [problem] = caught.value.problems
    assert (problem.line, problem.path) == (5, "rules[0].expect.model")


@pytest.mark.parametrize(
    "match", ["{query_model: 'A*'}", "{api: chat, query_llms: [a/*]}", "{api: [objectiveai, chat], query_model: 'A*'}"]
)
def test_query_keys_need_a_rule_for_query_requests_only(tmp_path: Path, match: str) -> None:
    (tmp_path / "rules.yaml").write_text(
        f"rules:\n  - name: q\n    match: {match}\n    reply: {{content: x}}\n", encoding="utf-8"
    )
    with pytest.raises(ScenarioError) as caught:
        load_paths([tmp_path])
    [problem] = caught.value.problems
    assert problem.line == 3 and problem.path.startswith("rules[0].match.query_")
    assert "api: objectiveai" in problem.reason


def test_warnings_of_the_computation_reach_the_journal_too(make_server: MakeServer) -> None:
    server = make_server("""\
        rules:
          - name: lost-vote
            match: {api: objectiveai}
            reply:
              query:
                llms:
                  - match: {mode: select_*}
                    output: {vote: nobody/*}
        """)
    model = {
        "models": [llm("openai/gpt-5-nano", "generate", 1), llm("openai/gpt-4o-mini", "select_non_thinking", 1)],
        "weight": {"type": "static"},
    }
    answer = raw(server, "s", {**ask("x", model), "temperature": 0.2})
    assert answer.status == 200 and "nobody/*" in answer.headers["x-emulator-warnings"]
    [entry] = control(server, "GET", "journal?session=s").json()["entries"]
    assert entry["warnings"][0] == "temperature is not a Query request field and is ignored"
    assert any("nobody/*" in w for w in entry["warnings"][1:])
    assert "; ".join(entry["warnings"]) == answer.headers["x-emulator-warnings"]
