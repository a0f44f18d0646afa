"""The control API's OpenAPI document and its handlers' checks agree (issue 31, item 10): what a schema
admits the handler takes, what it refuses the handler refuses, every status a handler answers is
documented, and every body type the handler reads is listed. Each test fails on one disagreement."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import MakeServer
from tests.control.helpers import control, error_of, ok
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = "rules:\n  - name: greet\n    reply: {content: hi}\n"
SCENARIO = "rules:\n  - name: other\n    reply: {content: hello}\n"
LATEST = 253_402_300_799  # 9999-12-31T23:59:59Z, the clock's last second
METHODS = {"get", "put", "post", "delete"}


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(RULES, max_body_bytes=1024)


@pytest.fixture
def document(server: EmulatorServer) -> dict[str, Any]:
    return ok(control(server, "GET", "openapi.json"))


def admits(schema: dict[str, Any], value: Any) -> bool:
    return Draft202012Validator(schema).is_valid(value)


def parameter(document: dict[str, Any], path: str, method: str, name: str) -> dict[str, Any]:
    item = document["paths"][path]
    [found] = [p for p in item.get("parameters", []) + item[method].get("parameters", []) if p["name"] == name]
    return found["schema"]  # type: ignore[no-any-return]


def body_schema(document: dict[str, Any], path: str, method: str, kind: str = "application/json") -> dict[str, Any]:
    return document["paths"][path][method]["requestBody"]["content"][kind]["schema"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("route", "name"),
    [("/journal", "limit"), ("/journal", "before"), ("/journal", "after"), ("/journal/unmatched", "limit")],
)
def test_the_journal_counts_end_where_the_document_says(
    server: EmulatorServer, document: dict[str, Any], route: str, name: str
):
    schema = parameter(document, route, "get", name)
    largest = schema["maximum"]
    assert admits(schema, largest) and not admits(schema, largest + 1) and not admits(schema, -1)
    ok(control(server, "GET", f"{route[1:]}?{name}={largest}"))
    ok(control(server, "GET", f"{route[1:]}?{name}=000{largest}"))  # the same number, written longer
    error_of(control(server, "GET", f"{route[1:]}?{name}={largest + 1}"), 400, "invalid_params")
    error_of(control(server, "GET", f"{route[1:]}?{name}=-1"), 400, "invalid_params")


@pytest.mark.parametrize(
    "kind", ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "application/json"]
)
def test_every_scenario_type_the_server_reads_is_documented(
    server: EmulatorServer, document: dict[str, Any], kind: str
):
    for path, method in (("/scenarios", "post"), ("/scenarios/{name}", "put")):
        assert kind in document["paths"][path][method]["requestBody"]["content"], (method, path)
    text = '{"rules": [{"name": "other", "reply": {"content": "hello"}}]}' if kind.endswith("json") else SCENARIO
    ok(control(server, "POST", "scenarios?name=typed", text=text, content_type=kind), 201)
    ok(control(server, "PUT", "scenarios/typed", text=text, content_type=kind))


def test_every_documented_scenario_type_is_read(server: EmulatorServer, document: dict[str, Any]):
    documented = document["paths"]["/scenarios"]["post"]["requestBody"]["content"]
    for number, kind in enumerate(documented):
        text = SCENARIO.replace("other", f"doc{number}")  # YAML reads JSON too: one text for every type
        if kind.endswith("json"):
            text = f'{{"rules": [{{"name": "doc{number}", "reply": {{"content": "x"}}}}]}}'
        ok(control(server, "POST", f"scenarios?name=doc{number}", text=text, content_type=kind), 201)
    assert "text/plain" not in documented
    error_of(
        control(server, "POST", "scenarios?name=plain", text=SCENARIO, content_type="text/plain"), 415, "invalid_params"
    )


@pytest.mark.parametrize(
    ("kind", "text"),
    [("application/json", "{}"), ("application/yaml", ""), ("application/yaml", "  \n"), ("text/yaml", "\n\n")],
)
def test_an_empty_scenario_the_document_refuses_is_refused(
    server: EmulatorServer, document: dict[str, Any], kind: str, text: str
):
    schema = body_schema(document, "/scenarios", "post", kind)
    assert not admits(schema, {} if kind.endswith("json") else text)
    error_of(control(server, "POST", "scenarios?name=empty", text=text, content_type=kind), 400, "invalid_params")


def test_a_reserved_name_is_refused_by_both(server: EmulatorServer, document: dict[str, Any]):
    for schema in (
        parameter(document, "/scenarios", "post", "name"),
        parameter(document, "/scenarios/{name}", "put", "name"),
    ):
        assert not admits(schema, "reload") and admits(schema, "reloaded")
    error_of(control(server, "POST", "scenarios?name=reload", text=SCENARIO), 400, "invalid_params")
    error_of(control(server, "PUT", "scenarios/reload", text=SCENARIO), 400, "invalid_params")
    ok(control(server, "POST", "scenarios?name=reloaded", text=SCENARIO), 201)


@pytest.mark.parametrize(
    ("body", "taken"),
    [
        ({"freeze_at": LATEST}, True),
        ({"freeze_at": LATEST + 1}, False),
        ({"freeze_at": -1}, False),
        ({"freeze_at": 0}, True),
        ({"advance": -1}, False),
        ({"advance": LATEST + 1}, False),
        ({"advance": 60}, True),
    ],
)
def test_the_clock_limits_are_the_documented_ones(
    server: EmulatorServer, document: dict[str, Any], body: dict[str, Any], taken: bool
):
    assert admits(body_schema(document, "/clock", "post"), body) is taken
    answer = control(server, "POST", "clock", json_body=body)
    if taken:
        ok(answer)
    else:
        error_of(answer, 400, "invalid_params")


def test_the_faults_documented_are_the_catalogues(server: EmulatorServer, document: dict[str, Any]):
    schema = body_schema(document, "/misbehave", "post")
    catalogue = [fault["fault"] for fault in ok(control(server, "GET", "misbehave"))["faults"]]
    for fault in [*catalogue, None]:
        assert admits(schema, {"session": "s", "fault": fault}), fault
        ok(control(server, "POST", "misbehave", json_body={"session": "s", "fault": fault}))
    assert not admits(schema, {"session": "s", "fault": "no-such-fault"})
    error_of(
        control(server, "POST", "misbehave", json_body={"session": "s", "fault": "no-such-fault"}),
        400,
        "invalid_params",
    )


@pytest.mark.parametrize(
    ("extra", "taken"),
    [
        ({"headers": None, "session": None}, True),
        ({"path": "//api/v1/chat/completions"}, False),
        ({"path": "api/v1/chat/completions"}, False),
    ],
)
def test_what_match_takes_is_what_it_documents(
    server: EmulatorServer, document: dict[str, Any], extra: dict[str, Any], taken: bool
):
    body = {
        "path": "/api/v1/chat/completions",
        "body": {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello"}]},
        **extra,
    }
    assert admits(body_schema(document, "/match", "post"), body) is taken
    answer = control(server, "POST", "match", json_body=body)
    if taken:
        ok(answer)
    else:
        error_of(answer, 400, "invalid_params")


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_an_unknown_query_parameter_answers_a_documented_status(server: EmulatorServer, document: dict[str, Any]):
    for method, path, operation in operations(document):
        route = path.replace("{name}", "x").replace("{scenario}", "x")[1:]
        answer = control(server, method.upper(), f"{route}?bogus=1")
        assert str(answer.status) in operation["responses"], (method, path, answer.status, answer.text)


def test_a_body_past_the_limit_answers_the_documented_413(server: EmulatorServer, document: dict[str, Any]):
    big = "#" + "x" * 2048 + "\n"
    for method, path, operation in operations(document):
        if "requestBody" not in operation:
            continue
        route = path.replace("{name}", "x").replace("{scenario}", "x")[1:] + (
            "?name=big" if path == "/scenarios" else ""
        )
        kind = "application/yaml" if "scenarios" in path else "application/json"
        answer = control(server, method.upper(), route, text=big, content_type=kind)
        assert answer.status == 413 and "413" in operation["responses"], (method, path, answer.status)
