"""`GET /_emulator/openapi.json`: a valid OpenAPI 3.1 document that describes every control route, no
more, and whose schemas fit what the routes answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai
import pytest
from aiohttp import web
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from tests.conftest import MakeServer
from tests.control.helpers import control, ok
from tests.scenarios.helpers import ask
from zenmux_emulator.pytest_plugin.server import EmulatorServer

OpenClient = Callable[..., openai.OpenAI]
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}

RULES = """\
rules:
  - name: greet
    match: {last_user: hello}
    reply: {content: hi}
"""


@pytest.fixture
def server(make_server: MakeServer) -> EmulatorServer:
    return make_server(RULES)


@pytest.fixture
def document(server: EmulatorServer) -> dict[str, Any]:
    return ok(control(server, "GET", "openapi.json"))


INSPECTOR = "/_emulator/ui/"
"""The inspector's sub-app: a page, its files and its live feed for a browser, not API operations
(tests/inspector drives them)."""


def control_routes(server: EmulatorServer) -> set[tuple[str, str]]:
    """(method, path below the prefix) of every route of the mounted control sub-app, HEAD (automatic
    for GET) and the inspector's routes aside."""
    [mounted] = [r for r in server.app.router.resources() if isinstance(r, web.PrefixedSubAppResource)]
    prefix = mounted.get_info()["prefix"]
    assert prefix == "/_emulator"
    subapp: web.Application = mounted.get_info()["app"]
    routes = {
        (route.method, route.resource.canonical)
        for route in subapp.router.routes()
        if route.method != "HEAD" and route.resource is not None and not route.resource.canonical.startswith(INSPECTOR)
    }
    assert all(path.startswith(prefix + "/") for _, path in routes)
    return {(method, path.removeprefix(prefix)) for method, path in routes}


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]):
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert document["servers"] == [{"url": "/_emulator"}]


def test_every_route_is_described_and_every_description_is_a_route(server: EmulatorServer, document: dict[str, Any]):
    described = {
        (method.upper(), path) for path, item in document["paths"].items() for method in item if method in METHODS
    }
    routes = control_routes(server)
    assert (
        len(routes) == 21
    )  # issue 30 the index, GET /; issue 27 POST /match; issue 28 GET and POST /misbehave; issue 37 the states; issue 41 GET /journal/verdict
    assert described == routes


def test_every_operation_says_who_may_call_it(document: dict[str, Any]):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                assert "403" in operation["responses"], f"{method} {path}"
                assert operation["summary"], f"{method} {path}"


def fits(document: dict[str, Any], schema: str, data: Any) -> None:
    """Validate `data` against a component schema of the document (refs resolved within it)."""
    root = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": document["components"],
        "$ref": f"#/components/schemas/{schema}",
    }
    errors = sorted(Draft202012Validator(root).iter_errors(data), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_answers_fit_the_documented_schemas(server: EmulatorServer, document: dict[str, Any], open_client: OpenClient):
    client = open_client(server, "shapes")
    ask(client, "hello")
    ask(client, "unmatched")
    fits(document, "Health", ok(control(server, "GET", "health")))
    fits(document, "Scenarios", ok(control(server, "GET", "scenarios?session=shapes")))
    fits(document, "Clock", ok(control(server, "GET", "clock")))
    for entry in ok(control(server, "GET", "journal"))["entries"]:
        fits(document, "JournalEntry", entry)
    [unmatched] = ok(control(server, "GET", "journal/unmatched"))["entries"]
    fits(document, "Unmatched", unmatched)
    fits(document, "Loaded", ok(control(server, "POST", "scenarios?name=x", text=RULES.replace("greet", "g2")), 201))
    fits(document, "InvalidScenario", control(server, "POST", "scenarios?name=y", text="rules: [1]").json())
    fits(document, "Error", control(server, "GET", "scenarios?session=nobody").json())


def test_a_schema_mismatch_would_be_caught(document: dict[str, Any]):
    with pytest.raises(AssertionError, match="frozen"):
        fits(document, "Clock", {"now": 1.0, "frozen": "yes"})
