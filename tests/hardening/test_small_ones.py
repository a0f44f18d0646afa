"""Issue 17, defect 9: 405s carry `Allow`; the OpenAPI document lists every 400 of the scenario
routes and fits every journal entry; a null scenario is refused; credential headers are masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACES, zenmux_error

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
YAML = [("Content-Type", "application/yaml")]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/_emulator/clock", {"GET", "POST"}),
        ("PATCH", "/_emulator/journal", {"GET", "DELETE"}),
        ("GET", "/_emulator/scenarios/reload", {"POST"}),
        ("GET", "/api/v1/chat/completions", {"POST"}),
    ],
)
def test_a_405_says_which_methods_are_allowed(
    make_server: MakeServer, wire_to: WireTo, method: str, path: str, allowed: set[str]
):
    status, headers, body = wire_to(make_server(RULES)).send(method, path)
    assert status == 405, body
    zenmux_error(405, orjson.loads(body))
    assert allowed <= {m.strip() for m in headers["allow"].split(",")}


@pytest.mark.parametrize(
    "text", ["null", "~", "", "# nothing\n", "---\n"], ids=["null", "tilde", "empty", "comment", "document-start"]
)
def test_a_null_scenario_is_refused_and_the_one_in_force_stays(make_server: MakeServer, wire_to: WireTo, text: str):
    wire = wire_to(make_server(RULES))
    assert (
        wire.send(
            "POST",
            "/_emulator/scenarios?name=mine",
            b"rules: [{name: mine, priority: 9, reply: {content: mine}}]",
            YAML,
        )[0]
        == 201
    )
    for method, path in (("PUT", "/_emulator/scenarios/mine"), ("POST", "/_emulator/scenarios?name=other")):
        status, _, body = wire.send(method, path, text.encode(), YAML)
        assert status == 400, body
        assert "scenario" in zenmux_error(400, orjson.loads(body))["message"]
        status, _, body = wire.send(method, path, b"null", [("Content-Type", "application/json")])
        assert status == 400, body
    status, _, body = wire.ask(FACES[0], FACES[0].valid())
    assert orjson.loads(body)["choices"][0]["message"]["content"] == "mine"


def fits(document: dict[str, Any], schema: dict[str, Any], data: Any) -> None:
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": document["components"], **schema}
    errors = sorted(Draft202012Validator(root).iter_errors(data), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_every_400_of_the_scenario_routes_fits_the_document(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    document = orjson.loads(wire.send("GET", "/_emulator/openapi.json")[2])
    assert wire.send("POST", "/_emulator/scenarios?name=mine", RULES.replace("hi", "mine").encode(), YAML)[0] == 201
    answers = [
        wire.send("POST", "/_emulator/scenarios", RULES.encode(), YAML),  # no name: invalid_params
        wire.send("POST", "/_emulator/scenarios?name=x", b"rules: [1]", YAML),  # invalid_scenario
        wire.send("POST", "/_emulator/scenarios?name=x", b"null", YAML),
        wire.send("PUT", "/_emulator/scenarios/mine", b"", YAML),
        wire.send("PUT", "/_emulator/scenarios/mine", b"rules: {}", YAML),
    ]
    for method, path in (("post", "/scenarios"), ("put", "/scenarios/{name}")):
        schema = document["paths"][path][method]["responses"]["400"]["content"]["application/json"]["schema"]
        for status, _, body in answers:
            assert status == 400, body
            fits(document, schema, orjson.loads(body))
    types = {orjson.loads(body)["error"]["type"] for _, _, body in answers}
    assert types == {"invalid_params", "invalid_scenario"}


def test_the_journal_entry_schema_names_every_field_of_real_entries(make_server: MakeServer, wire_to: WireTo):
    server = make_server(
        RULES + "  - name: streamed\n    match: {last_user: stream}\n    reply: {content: a b c}\n", strict=True
    )
    wire = wire_to(server)
    for face in FACES:
        wire.ask(face, face.valid())
        wire.ask(face, {**face.valid(), "stream": True})
    wire.ask(FACES[0], {"model": "x"})
    wire.ask(FACES[0], {**FACES[0].valid(), "messages": [{"role": "user", "content": "stream"}], "stream": True})
    wire.send("GET", "/api/v1/nowhere")
    wire.send("GET", "/api/v1/chat/completions")
    document = orjson.loads(wire.send("GET", "/_emulator/openapi.json")[2])
    schema = document["components"]["schemas"]["JournalEntry"]
    entries = orjson.loads(wire.send("GET", "/_emulator/journal")[2])["entries"]
    assert len(entries) == 2 * len(FACES) + 4
    for entry in entries:
        assert set(entry) == set(schema["properties"]), set(entry) ^ set(schema["properties"])
        assert set(schema["required"]) == set(entry)
        fits(document, {"$ref": "#/components/schemas/JournalEntry"}, entry)


CREDENTIALS = {
    "Authorization": "Bearer sk-secret-1",
    "x-api-key": "sk-secret-2",
    "api-key": "sk-secret-3",
    "X-Auth-Token": "sk-secret-4",
    "OpenAI-Organization": "org-secret-5",
    "OpenAI-Project": "proj-secret-6",
    "Proxy-Authorization": "Basic c2VjcmV0Nw==",
    "Cookie": "session=secret-8",
    "X-Goog-Api-Key": "secret-9",
    "X-Amz-Security-Token": "secret-10",
    "X-Access-Token": "secret-11",
}


def test_credential_headers_are_masked_in_the_journal_and_its_file(
    make_server: MakeServer, wire_to: WireTo, tmp_path: Path
):
    journal = tmp_path / "journal.jsonl"
    server = make_server(RULES, journal_file=journal)
    wire = wire_to(server)
    assert wire.ask(FACES[0], FACES[0].valid(), list(CREDENTIALS.items()))[0] == 200
    listed = wire.send("GET", "/_emulator/journal")[2]
    server.stop()
    for text in (listed, journal.read_bytes()):
        assert b"secret" not in text, text
        headers = orjson.loads(text.splitlines()[0] if text is not listed else text)
        headers = headers["headers"] if "headers" in headers else headers["entries"][0]["headers"]
        shown = {k.lower(): v for k, v in headers.items()}
        assert {shown[name.lower()] for name in CREDENTIALS} <= {"***", "Bearer ***", "Basic ***"}
