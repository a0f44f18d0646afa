"""What a web page on another site can make a browser send is refused by the control API and the
inspector (issue 40, item 3): a body that is not `application/json` on a JSON route, an `Origin`
that is not the emulator's own, a `Host` that is not a loopback name (DNS rebinding) unless
`--allowed-host` names it or `--admin-token` is set, and a JSON body that gives a key twice."""

from __future__ import annotations

import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control, error_of, ok
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
FROZEN = 1_767_225_600
TOKEN = "s3cret-admin"


def clock_now(server: EmulatorServer) -> float:
    return float(ok(control(server, "GET", "clock"))["now"])


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", '{"advance": 60}'),
        ("text/plain", '{"advance": 60, "x": "=1"}'),
        ("application/x-www-form-urlencoded", '{"advance": 60}'),
        ("multipart/form-data; boundary=b", '{"advance": 60}'),
        ("application/json-patch+json", '{"advance": 60}'),
    ],
)
def test_a_json_route_refuses_a_body_that_is_not_application_json(
    make_server: MakeServer, content_type: str, body: str
):
    server = make_server(RULES)
    response = control(server, "POST", "clock", text=body, content_type=content_type)
    error = error_of(response, 415, "invalid_params")
    assert "application/json" in error["message"]
    assert clock_now(server) == FROZEN  # nothing changed


def test_an_empty_form_post_cannot_reset_every_session(make_server: MakeServer):
    server = make_server(RULES)
    sent = http(f"{server.origin}/_emulator/sessions/reset", b"", method="POST", headers={"Content-Type": "text/plain"})
    error_of(sent, 415, "invalid_params")
    ok(control(server, "POST", "sessions/reset"))  # no body and no Content-Type: every session, as documented


def test_application_json_with_a_charset_is_json(make_server: MakeServer):
    server = make_server(RULES)
    response = control(server, "POST", "clock", text='{"advance": 60}', content_type="application/json; charset=utf-8")
    assert ok(response)["now"] == FROZEN + 60


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('{"advance": 60, "advance": 0}', "advance"),
        ('{"freeze_at": 0, "unfreeze": true, "freeze_at": 5}', "freeze_at"),
    ],
)
def test_a_key_given_twice_is_a_400_naming_it(make_server: MakeServer, body: str, key: str):
    server = make_server(RULES)
    error = error_of(
        control(server, "POST", "clock", text=body, content_type="application/json"), 400, "invalid_params"
    )
    assert repr(key) in error["message"] and "twice" in error["message"]
    assert clock_now(server) == FROZEN


def test_a_nested_key_given_twice_is_a_400_too(make_server: MakeServer):
    body = '{"path": "/api/v1/chat/completions", "body": {"model": "m", "model": "n", "messages": []}}'
    response = control(make_server(RULES), "POST", "match", text=body, content_type="application/json")
    assert "'model'" in error_of(response, 400, "invalid_params")["message"]


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://127.0.0.1", "http://127.0.0.1:1"])
def test_an_origin_that_is_not_the_emulators_own_is_refused(make_server: MakeServer, origin: str):
    server = make_server(RULES)
    response = control(server, "POST", "clock", json_body={"advance": 60}, headers={"Origin": origin})
    assert "Origin" in error_of(response, 403, "access_denied")["message"]
    error_of(control(server, "GET", "journal", headers={"Origin": origin}), 403, "access_denied")
    error_of(control(server, "GET", "ui/", headers={"Origin": origin}), 403, "access_denied")
    assert clock_now(server) == FROZEN


def test_the_emulators_own_origin_is_accepted(make_server: MakeServer):
    server = make_server(RULES)
    response = control(server, "POST", "clock", json_body={"advance": 60}, headers={"Origin": server.origin})
    assert ok(response)["now"] == FROZEN + 60


def test_the_own_origin_is_refused_with_an_admin_token_only_if_it_is_not_own(make_server: MakeServer):
    server = make_server(RULES, admin_token=TOKEN)
    auth = {"X-Emulator-Admin-Token": TOKEN}
    error_of(control(server, "GET", "health", headers={**auth, "Origin": "http://evil.example"}), 403, "access_denied")
    assert ok(control(server, "GET", "health", headers={**auth, "Origin": server.origin}))["status"] == "ok"


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil.example"]
)
def test_a_host_that_is_not_loopback_is_refused(make_server: MakeServer, host: str):
    server = make_server(RULES)
    error = error_of(control(server, "GET", "journal", headers={"Host": host}), 403, "access_denied")
    assert "Host" in error["message"] and "--allowed-host" in error["message"]
    error_of(control(server, "POST", "clock", json_body={"advance": 60}, headers={"Host": host}), 403, "access_denied")
    error_of(control(server, "GET", "ui/events", headers={"Host": host}), 403, "access_denied")
    assert clock_now(server) == FROZEN


@pytest.mark.parametrize("name", ["localhost", "LOCALHOST.", "app.localhost", "127.0.0.1", "127.8.9.10", "[::1]"])
def test_loopback_host_names_are_accepted(make_server: MakeServer, name: str):
    server = make_server(RULES)
    host = f"{name}:{server.port}"
    assert ok(control(server, "GET", "health", headers={"Host": host}))["status"] == "ok"
    origin = {"Origin": f"http://{host}", "Host": host}  # the inspector's page opened at that name
    assert ok(control(server, "POST", "clock", json_body={"advance": 1}, headers=origin))["now"] == FROZEN + 1


def test_an_allowed_host_is_accepted(make_server: MakeServer):
    server = make_server(RULES, allowed_hosts=["emulator.test"])
    assert ok(control(server, "GET", "health", headers={"Host": "emulator.test:9"}))["status"] == "ok"
    error_of(control(server, "GET", "health", headers={"Host": "other.test"}), 403, "access_denied")


def test_with_an_admin_token_any_host_is_accepted(make_server: MakeServer):
    server = make_server(RULES, admin_token=TOKEN)
    auth = {"X-Emulator-Admin-Token": TOKEN, "Host": "emulator.internal"}
    assert ok(control(server, "GET", "health", headers=auth))["status"] == "ok"


def test_the_faces_do_not_check_the_host(make_server: MakeServer):
    server = make_server(RULES)
    body = b'{"model": "openai/gpt-5", "messages": [{"role": "user", "content": "x"}]}'
    headers = {"Host": "emulator.internal", "Authorization": "Bearer sk-x", "Content-Type": "application/json"}
    assert http(f"{server.origin}/api/v1/chat/completions", body, method="POST", headers=headers).status == 200


def test_reload_takes_no_body(make_server: MakeServer):
    server = make_server(RULES)
    error = error_of(
        control(server, "POST", "scenarios/reload", json_body={"files": ["other.yaml"]}), 400, "invalid_params"
    )
    assert "files" in error["message"] and "takes no body" in error["message"]
    error_of(control(server, "POST", "scenarios/reload", text="x", content_type="text/plain"), 415, "invalid_params")
    assert ok(control(server, "POST", "scenarios/reload"))["reloaded"] is True
    assert ok(control(server, "POST", "scenarios/reload", json_body={}))["reloaded"] is True
