"""Issue 31, item 10: the smaller defects. No scenario may be named `reload` (the control API's
own path); `{}` and `null` are not scenarios; many rules loaded through the control API leave
health answering."""

from __future__ import annotations

import http.client

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.stalls import BIG_BODY_PROBE_S, assert_no_stall, timed_with_probes

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
YAML = [("Content-Type", "application/yaml")]
RULE_COUNT = 10_000
"""The issue loaded 50,000 (health held 6.9 s); building them takes half a minute of a loaded
machine's core, so the suite loads a fifth as many: the hold it looks for is per document."""


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


def test_many_rules_through_the_control_api_leave_health_answering(make_server: MakeServer):
    server = make_server(RULES)
    scenario = (
        "rules:\n"
        + "".join(
            f"  - {{name: r{i}, match: {{last_user: {{contains: w{i}}}}}, reply: {{content: x}}}}\n"
            for i in range(RULE_COUNT)
        )
    ).encode()

    def send() -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
        try:
            conn.request("POST", "/_emulator/scenarios?name=many", scenario, {"Content-Type": "application/yaml"})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    timed = timed_with_probes(server, send)
    assert timed.status == 201, timed.body[:300]
    assert len(orjson.loads(timed.body)["rules"]) == RULE_COUNT
    # the load itself takes long (seconds per 10,000 rules): what matters is health meanwhile. It
    # was held 6.9 s by 50,000; what still holds it is pydantic's one validation call over the
    # whole document (a fifth of a second here on a quiet machine), hence the margin
    assert_no_stall(timed, probe_within=BIG_BODY_PROBE_S, answer_within=300)
