"""`/_emulator/scenarios`: the rules in force with their hits; scenarios loaded, replaced and removed
at run time and answering at once; file reloads that keep the API's scenarios."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import openai
import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control, error_of, ok
from tests.scenarios.helpers import EXPLODE, INTERNALS, ask, break_loading
from zenmux_emulator.core.rules.registry import LoadFailed
from zenmux_emulator.pytest_plugin.server import EmulatorServer

OpenClient = Callable[..., openai.OpenAI]

FILE_RULES = """\
rules:
  - name: greet
    match: {last_user: {contains: "hello"}}
    reply: {content: "file hello"}
  - name: counter
    priority: 5
    match: {last_user: "count", model: "openai/*"}
    replies:
      - {content: one}
      - {content: two}
    then: cycle
"""

API_RULES = """\
rules:
  - name: weather
    match: {last_user: {contains: weather}}
    reply: {content: "sunny from the API"}
"""


def scenario_file(server: EmulatorServer) -> Path:
    return Path(server.settings.scenarios[0]) / "s0.yaml"


def rule_of(listing: dict, name: str) -> dict:
    return next(rule for rule in listing["rules"] if rule["name"] == name)


def test_the_listing_shows_sources_rules_and_where_they_come_from(make_server: MakeServer):
    server = make_server(FILE_RULES)
    path = str(scenario_file(server))
    listing = ok(control(server, "GET", "scenarios"))
    assert listing["sources"] == [{"kind": "file", "name": path, "source": path, "rules": 2}]
    assert [r["name"] for r in listing["rules"]] == ["counter", "greet"]  # the order they are tried
    assert listing["rules"][0] == {
        "name": "counter",
        "source": path,
        "line": 5,
        "where": f"{path}:5",
        "priority": 5,
        "match": {"last_user": "contains 'count'", "model": "'openai/*'"},
        "replies": 2,
        "then": "cycle",
        "hits": {"total": 0},
    }
    greet = rule_of(listing, "greet")
    assert (greet["where"], greet["priority"], greet["replies"], greet["then"]) == (f"{path}:2", 0, 1, "repeat_last")


def test_hits_are_counted_in_total_and_per_session(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    alice, bob = open_client(server, "alice"), open_client(server, "bob")
    assert [ask(alice, "count").content for _ in range(3)] == ["one", "two", "one"]
    assert ask(bob, "count please").content == "one"
    assert ask(bob, "hello").rule == "greet"
    listing = ok(control(server, "GET", "scenarios?session=alice"))
    assert rule_of(listing, "counter")["hits"] == {"total": 4, "session": 3}
    assert rule_of(listing, "greet")["hits"] == {"total": 1, "session": 0}
    assert rule_of(ok(control(server, "GET", "scenarios")), "counter")["hits"] == {"total": 4}


def test_hits_of_an_unknown_session_are_refused(make_server: MakeServer):
    server = make_server(FILE_RULES)
    error = error_of(control(server, "GET", "scenarios?session=nobody"), 404, "unknown_session")
    assert "'nobody'" in error["message"]
    typo = error_of(control(server, "GET", "scenarios?sesion=x"), 400, "invalid_params")
    assert typo["message"] == "Parameter sesion is not supported here (supported: session)"


def test_a_scenario_loaded_through_the_api_answers_at_once(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    client = open_client(server)
    assert ask(client, "what's the weather?").rule is None  # the default reply
    loaded = ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    assert loaded == {
        "name": "my-rules",
        "source": "api:my-rules",
        "rules": ["weather"],
        "generation": server.state.registry.generation,
    }
    answer = ask(client, "what's the weather?")
    assert (answer.rule, answer.content) == ("weather", "sunny from the API")
    assert ask(client, "hello").content == "file hello"  # the files are still in force
    listing = ok(control(server, "GET", "scenarios"))
    assert listing["sources"][-1] == {"kind": "api", "name": "my-rules", "source": "api:my-rules", "rules": 1}
    assert rule_of(listing, "weather")["where"] == "api:my-rules:2"
    assert rule_of(listing, "weather")["hits"] == {"total": 1}
    health = ok(control(server, "GET", "health"))
    assert (health["api_scenarios"], health["files"], health["rules"]) == (
        ["my-rules"],
        [str(scenario_file(server))],
        3,
    )


def test_json_bodies_load_like_yaml(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    body = {"rules": [{"name": "json-rule", "match": {"last_user": "json"}, "reply": {"content": "from JSON"}}]}
    ok(control(server, "POST", "scenarios?name=as-json", json_body=body), 201)
    assert ask(open_client(server), "json please").content == "from JSON"


def test_api_scenarios_come_after_the_files_and_in_the_order_added(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    catch_all = "rules:\n  - name: {name}\n    reply: {{content: {name}}}\n"
    ok(control(server, "POST", "scenarios?name=first", text=catch_all.format(name="first-all")), 201)
    ok(control(server, "POST", "scenarios?name=second", text=catch_all.format(name="second-all")), 201)
    client = open_client(server)
    assert ask(client, "hello").rule == "greet"  # a file rule wins a tie with an API rule
    assert ask(client, "anything").rule == "first-all"
    ok(control(server, "PUT", "scenarios/first", text=catch_all.format(name="first-again")))
    assert ask(client, "anything").rule == "first-again"  # replaced in place, still before `second`
    names = [s["name"] for s in ok(control(server, "GET", "scenarios"))["sources"]]
    assert names[1:] == ["first", "second"]


def test_put_replaces_and_delete_removes(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    client = open_client(server)
    ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    replaced = ok(control(server, "PUT", "scenarios/my-rules", text=API_RULES.replace("sunny", "rainy")))
    assert replaced["rules"] == ["weather"]
    assert ask(client, "weather?").content == "rainy from the API"
    removed = ok(control(server, "DELETE", "scenarios/my-rules"))
    assert (removed["removed"], removed["rules"]) == ("my-rules", 2)
    assert ask(client, "weather?").rule is None
    assert ok(control(server, "GET", "health"))["api_scenarios"] == []


def test_unknown_and_taken_names_are_refused(make_server: MakeServer):
    server = make_server(FILE_RULES)
    ok(control(server, "POST", "scenarios?name=mine", text=API_RULES), 201)
    error = error_of(control(server, "POST", "scenarios?name=mine", text=API_RULES), 409, "scenario_exists")
    assert "PUT /_emulator/scenarios/mine" in error["message"]
    assert (
        "'ghost'"
        in error_of(control(server, "PUT", "scenarios/ghost", text=API_RULES), 404, "unknown_scenario")["message"]
    )
    error_of(control(server, "DELETE", "scenarios/ghost"), 404, "unknown_scenario")
    # a file is not an API scenario: it is changed on disk
    error_of(control(server, "DELETE", "scenarios/s0.yaml"), 404, "unknown_scenario")
    assert (
        "name is required"
        in error_of(control(server, "POST", "scenarios", text=API_RULES), 400, "invalid_params")["message"]
    )
    assert (
        "name is not valid"
        in error_of(control(server, "POST", "scenarios?name=-bad", text=API_RULES), 400, "invalid_params")["message"]
    )


def test_bodies_must_be_yaml_or_json_and_not_empty(make_server: MakeServer):
    server = make_server(FILE_RULES)
    error = error_of(
        control(server, "POST", "scenarios?name=x", text=API_RULES, content_type="text/plain"), 415, "invalid_params"
    )
    assert "text/plain" in error["message"]
    assert (
        "empty" in error_of(control(server, "POST", "scenarios?name=x", text="  \n"), 400, "invalid_params")["message"]
    )
    assert ok(control(server, "GET", "health"))["api_scenarios"] == []


def test_a_bad_scenario_is_refused_with_located_problems_and_changes_nothing(
    make_server: MakeServer, open_client: OpenClient
):
    server = make_server(FILE_RULES)
    generation = server.state.registry.generation
    bad = """\
    rules:
      - name: fine
        reply: {content: ok}
      - name: broken
        reply: {content: ok, finish_reason: done}
      - name: typo
        mtach: {model: "x/*"}
        reply: {content: ok}
    """
    response = control(server, "POST", "scenarios?name=bad", text=bad)
    error = error_of(response, 400, "invalid_scenario")
    problems = {(p["file"], p["line"], p["path"]) for p in error["problems"]}
    assert ("api:bad", 5, "rules[1].reply.finish_reason") in problems
    assert ("api:bad", 7, "rules[2].mtach") in problems
    assert all(set(p) == {"file", "line", "column", "path", "reason"} for p in error["problems"])
    assert "api:bad:5" in error["message"]
    assert server.state.registry.generation == generation
    assert ask(open_client(server), "anything").rule is None  # `fine` was not loaded either
    assert ok(control(server, "GET", "health"))["api_scenarios"] == []


def test_a_scenario_that_cannot_be_read_is_refused_with_its_place_not_a_500(
    make_server: MakeServer, open_client: OpenClient
):
    server = make_server(FILE_RULES)
    generation = server.state.registry.generation
    unreadable = "rules:\n  - name: weather\n    reply: {content: sunny}\n    stream: !!bool tre\n"
    error = error_of(control(server, "POST", "scenarios?name=tags", text=unreadable), 400, "invalid_scenario")
    assert error["problems"] == [
        {"file": "api:tags", "line": 4, "column": 13, "path": "", "reason": "cannot read '!!bool tre': not a boolean"}
    ]
    assert "api:tags:4:13: cannot read '!!bool tre'" in error["message"]

    deep = '{"rules": [{"name": "deep", "reply": {"content": ' + "[" * 3000 + "]" * 3000 + "}}]}"
    response = control(server, "POST", "scenarios?name=deep", text=deep, content_type="application/json")
    [problem] = error_of(response, 400, "invalid_scenario")["problems"]
    assert (problem["file"], problem["line"], problem["reason"]) == ("api:deep", 1, "nesting deeper than 100 levels")

    ok(control(server, "POST", "scenarios?name=mine", text=API_RULES), 201)
    error = error_of(control(server, "PUT", "scenarios/mine", text=unreadable), 400, "invalid_scenario")
    assert error["problems"][0]["reason"] == "cannot read '!!bool tre': not a boolean"
    assert server.state.registry.generation == generation + 1  # only the good scenario was loaded
    assert ask(open_client(server), "weather").content == "sunny from the API"


def test_a_reload_of_an_unreadable_file_keeps_the_last_good_set(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    scenario_file(server).write_text(
        FILE_RULES.replace("then: cycle", "then: cycle\n    priority: !!int x"), encoding="utf-8"
    )
    error = error_of(control(server, "POST", "scenarios/reload"), 400, "invalid_scenario")
    assert [(p["file"], p["line"], p["column"], p["reason"]) for p in error["problems"]] == [
        (str(scenario_file(server)), 12, 15, "cannot read '!!int x': not an integer")
    ]
    assert ask(open_client(server), "hello").content == "file hello"


def test_a_scenario_with_values_json_cannot_carry_is_refused_at_upload(
    make_server: MakeServer, open_client: OpenClient
):
    # Loaded before, then every request it answered was a 500 ("Type is not JSON serializable: bytes").
    server = make_server(FILE_RULES)
    generation = server.state.registry.generation
    binary = (
        "rules:\n  - name: call\n    match: {last_user: call}\n    reply:\n      tool_calls:\n"
        "        - name: lookup\n          arguments: {order: {id: !!binary aGk=}}\n"
    )
    error = error_of(control(server, "POST", "scenarios?name=binary", text=binary), 400, "invalid_scenario")
    assert error["problems"] == [
        {
            "file": "api:binary",
            "line": 7,
            "column": 35,
            "path": "rules[0].reply.tool_calls[0].arguments.order.id",
            "reason": "not JSON: binary data (!!binary) cannot be sent in a JSON reply; write a string",
        }
    ]
    assert "api:binary:7:35: not JSON: binary data" in error["message"]

    lone = {"rules": [{"name": "lone", "reply": {"content": "half \ud83d of a character"}}]}
    response = control(server, "POST", "scenarios?name=lone", text=json.dumps(lone), content_type="application/json")
    [problem] = error_of(response, 400, "invalid_scenario")["problems"]
    assert (problem["line"], problem["reason"]) == (
        1,
        "\\ud83d is half of a surrogate pair: alone it is not a character and cannot be sent as UTF-8",
    )
    assert server.state.registry.generation == generation
    assert ask(open_client(server), "hello").content == "file hello"


def test_a_json_scenario_with_characters_escaped_as_surrogate_pairs_answers_them(
    make_server: MakeServer, open_client: OpenClient
):
    # `json.dumps` escapes characters past U+FFFF as pairs (ensure_ascii): they were loaded as two halves,
    # and the reply failed.
    server = make_server(FILE_RULES)
    party = {"rules": [{"name": "party", "match": {"last_user": "party"}, "reply": {"content": "let's \U0001f389!"}}]}
    text = json.dumps(party)
    assert "\\ud83c\\udf89" in text
    ok(control(server, "POST", "scenarios?name=party", text=text, content_type="application/json"), 201)
    assert ask(open_client(server), "party").content == "let's \U0001f389!"


def test_an_unexpected_failure_of_a_scenario_change_is_a_500_envelope_and_changes_nothing(
    make_server: MakeServer, open_client: OpenClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    # The file has a rule whose template the broken loader fails on: every rebuild now fails.
    server = make_server(
        FILE_RULES + f"  - name: exploding\n    match: {{last_user: never}}\n    reply: {{content: '{EXPLODE}'}}\n"
    )
    ok(control(server, "POST", "scenarios?name=mine", text=API_RULES), 201)
    registry = server.state.registry
    generation = registry.generation
    break_loading(monkeypatch)

    for method, route, text, what in [
        ("POST", "scenarios?name=other", API_RULES.replace("weather", "rain"), "Scenario 'other' was not loaded"),
        ("PUT", "scenarios/mine", API_RULES.replace("sunny", "cloudy"), "Scenario 'mine' was not loaded"),
        ("DELETE", "scenarios/mine", None, "Scenario 'mine' was not removed"),
    ]:
        response = control(server, method, route, text=text)
        error = error_of(response, 500, "internal_server_error")
        request_id = response.headers["x-zenmux-requestid"]
        assert error["message"] == (
            f"{what}: the emulator failed unexpectedly; see its log for request {request_id}. "
            "The scenarios in force are unchanged"
        )
        assert INTERNALS not in response.text and "Traceback" not in response.text
        [record] = [r for r in caplog.records if request_id in r.getMessage()]
        assert record.exc_info is not None and str(record.exc_info[1]) == INTERNALS
        caplog.clear()

    assert registry.generation == generation
    assert registry.api_names == ["mine"]
    assert ask(open_client(server), "weather").content == "sunny from the API"


def test_a_reload_that_fails_unexpectedly_is_a_500_envelope_and_keeps_the_last_good_set(
    make_server: MakeServer, open_client: OpenClient, monkeypatch: pytest.MonkeyPatch
):
    server = make_server(FILE_RULES)
    client = open_client(server)
    break_loading(monkeypatch)
    scenario_file(server).write_text(FILE_RULES.replace('"file hello"', f"'edited {EXPLODE}'"), encoding="utf-8")

    response = control(server, "POST", "scenarios/reload")
    error = error_of(response, 500, "internal_server_error")
    assert error["message"] == (
        "The scenario files were not reloaded: the emulator failed unexpectedly; see its log. "
        "The last good scenarios stay in force"
    )
    assert INTERNALS not in response.text
    assert ok(control(server, "GET", "health"))["last_reload_error"] == str(LoadFailed())
    assert ask(client, "hello").content == "file hello"

    monkeypatch.undo()
    assert ok(control(server, "POST", "scenarios/reload"))["reloaded"] is True
    assert ok(control(server, "GET", "health"))["last_reload_error"] is None


def test_a_rule_name_taken_by_a_file_is_a_problem(make_server: MakeServer):
    server = make_server(FILE_RULES)
    clash = "rules:\n  - name: greet\n    reply: {content: again}\n"
    error = error_of(control(server, "POST", "scenarios?name=clash", text=clash), 400, "invalid_scenario")
    [problem] = error["problems"]
    assert (problem["file"], problem["line"]) == ("api:clash", 2)
    assert str(scenario_file(server)) in problem["reason"]


def test_reload_reads_the_files_now_and_keeps_the_api_scenarios(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)  # not watching: only the API reloads
    client = open_client(server)
    ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    scenario_file(server).write_text(FILE_RULES.replace("file hello", "edited hello"), encoding="utf-8")
    assert ask(client, "hello").content == "file hello"
    reloaded = ok(control(server, "POST", "scenarios/reload"))
    assert (reloaded["reloaded"], reloaded["rules"], reloaded["files"]) == (True, 3, [str(scenario_file(server))])
    assert ask(client, "hello").content == "edited hello"
    assert ask(client, "weather").content == "sunny from the API"


def test_a_failed_reload_reports_problems_and_keeps_the_last_good_set(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    client = open_client(server)
    ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    scenario_file(server).write_text(FILE_RULES.replace("then: cycle", "then: sometimes"), encoding="utf-8")
    error = error_of(control(server, "POST", "scenarios/reload"), 400, "invalid_scenario")
    [problem] = error["problems"]
    assert (problem["file"], problem["line"], problem["path"]) == (str(scenario_file(server)), 11, "rules[1].then")
    assert "last good scenarios stay in force" in error["message"]
    assert ask(client, "hello").content == "file hello"
    assert ask(client, "weather").content == "sunny from the API"
    assert "rules[1].then" in ok(control(server, "GET", "health"))["last_reload_error"]


def test_an_api_change_reuses_the_last_good_file_texts(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    client = open_client(server)
    scenario_file(server).write_text("rules: [oops", encoding="utf-8")  # broken on disk, never reloaded
    ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    assert ask(client, "hello").content == "file hello"
    assert ask(client, "weather").content == "sunny from the API"
    assert ok(control(server, "GET", "health"))["last_reload_error"] is None


def test_sequence_positions_survive_an_api_change(make_server: MakeServer, open_client: OpenClient):
    server = make_server(FILE_RULES)
    client = open_client(server)
    assert ask(client, "count").content == "one"
    ok(control(server, "POST", "scenarios?name=my-rules", text=API_RULES), 201)
    assert ask(client, "count").content == "two"
