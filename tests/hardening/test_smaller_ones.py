"""Issue 31, item 10: the smaller defects. A router-level 404 or 405 under `/objectiveai` answers
in the Query envelope; no scenario may be named `reload` (the control API's own path); `{}` and
`null` are not scenarios; 50,000 rules loaded through the control API leave health answering."""

from __future__ import annotations

import http.client

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.stalls import assert_no_stall, timed_with_probes

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
YAML = [("Content-Type", "application/yaml")]


@pytest.mark.parametrize(
    ("method", "path", "status", "allow"),
    [
        ("GET", "/objectiveai/nowhere", 404, None),
        ("PUT", "/objectiveai/query/completions", 405, "GET, POST"),
        ("DELETE", "/objectiveai/query_models/x", 405, "GET"),
    ],
)
def test_router_errors_under_objectiveai_are_in_the_query_envelope(
    make_server: MakeServer, wire_to: WireTo, method: str, path: str, status: int, allow: str | None
):
    answered, headers, body = wire_to(make_server(RULES)).send(method, path, b"{}")
    assert answered == status
    data = orjson.loads(body)
    assert data["kind"] == "query" and data["error"]["kind"] in ("not_found", "method_not_allowed"), data
    assert headers.get("allow") == allow


@pytest.mark.parametrize("body", [b"{}", b"null", b"--- {}\n", b"# nothing\n"])
def test_an_empty_scenario_is_refused(make_server: MakeServer, wire_to: WireTo, body: bytes):
    status, _, answer = wire_to(make_server(RULES)).send("POST", "/_emulator/scenarios?name=empty", body, YAML)
    assert status == 400, answer
    assert "empty scenario" in orjson.loads(answer)["error"]["message"]


def test_no_scenario_may_be_named_reload(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    scenario = b"rules: [{name: r, reply: {content: x}}]"
    status, _, answer = wire.send("POST", "/_emulator/scenarios?name=reload", scenario, YAML)
    assert status == 400 and "reserved" in orjson.loads(answer)["error"]["message"]
    assert wire.send("PUT", "/_emulator/scenarios/reload", scenario, YAML)[0] == 400
    assert wire.send("POST", "/_emulator/scenarios/reload")[0] == 200  # the action, still there


def test_fifty_thousand_rules_through_the_control_api_leave_health_answering(make_server: MakeServer):
    server = make_server(RULES)
    scenario = (
        "rules:\n"
        + "".join(
            f"  - {{name: r{i}, match: {{last_user: {{contains: w{i}}}}}, reply: {{content: x}}}}\n"
            for i in range(50_000)
        )
    ).encode()

    def send() -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            conn.request("POST", "/_emulator/scenarios?name=many", scenario, {"Content-Type": "application/yaml"})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    timed = timed_with_probes(server, send)
    assert timed.status == 201, timed.body[:300]
    assert len(orjson.loads(timed.body)["rules"]) == 50_000
    # the load itself takes long (seconds per 10,000 rules): what matters is health meanwhile. It
    # was held 6.9 s; what still holds it is pydantic's one validation call over the whole document
    # (about a second on a quiet machine), hence the margin
    assert_no_stall(timed, probe_within=4.0, answer_within=300)
