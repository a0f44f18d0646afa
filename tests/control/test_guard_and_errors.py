"""Who may use the control API, and how it answers bad requests: ZenMux's envelope, never a 500."""

from __future__ import annotations

from collections.abc import Callable
from unittest.mock import Mock

import openai
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from tests.conftest import MakeServer
from tests.control.helpers import control, error_of, ok
from tests.scenarios.helpers import ask
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.server.app import create_app
from zenmux_emulator.server.control.guard import control_guard, is_loopback
from zenmux_emulator.settings import Settings

OpenClient = Callable[..., openai.OpenAI]
TOKEN = "s3cret-admin"
HEADER = "X-Emulator-Admin-Token"
RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"


def test_loopback_clients_need_no_token_when_none_is_set(make_server: MakeServer):
    assert ok(control(make_server(RULES), "GET", "health"))["status"] == "ok"


@pytest.mark.parametrize(
    "headers", [{}, {HEADER: "wrong"}, {HEADER: TOKEN + "x"}, {HEADER: ""}], ids=["none", "wrong", "longer", "empty"]
)
def test_with_a_token_set_every_client_must_send_it(make_server: MakeServer, headers: dict[str, str]):
    server = make_server(RULES, admin_token=TOKEN)
    error = error_of(control(server, "GET", "health", headers=headers), 403, "access_denied")
    assert HEADER in error["message"]
    error_of(control(server, "POST", "clock", json_body={"advance": 5}, headers=headers), 403, "access_denied")
    assert ok(control(server, "GET", "clock", headers={HEADER: TOKEN}))["now"] == 1_767_225_600  # unchanged


def test_the_right_token_opens_every_route(make_server: MakeServer, open_client: OpenClient):
    server = make_server(RULES, admin_token=TOKEN)
    auth = {HEADER: TOKEN}
    assert ok(control(server, "GET", "health", headers=auth))["status"] == "ok"
    ok(
        control(
            server,
            "POST",
            "scenarios?name=more",
            headers=auth,
            text="rules:\n  - name: more\n    priority: 1\n    reply: {content: more}\n",
        ),
        201,
    )
    assert ask(open_client(server), "x").content == "more"  # the chat API needs no admin token
    assert ok(control(server, "GET", "journal?rule=more", headers=auth))["count"] == 1


def remote_request(remote: str, settings: Settings) -> web.Request:
    """A request to the control app as if from `remote` (a loopback test server cannot have such clients)."""
    app = create_app(settings)
    [mounted] = [r for r in app.router.resources() if isinstance(r, web.PrefixedSubAppResource)]
    transport = Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (remote, 4242) if name == "peername" else default
    return make_mocked_request(
        "GET", "/_emulator/health", headers={HEADER: TOKEN}, app=mounted.get_info()["app"], transport=transport
    )


async def test_a_remote_client_is_refused_without_a_token_and_admitted_with_it():
    async def handler(request: web.Request) -> web.Response:
        return web.Response(text="in")

    with pytest.raises(RequestRejected) as refused:
        await control_guard(remote_request("10.1.2.3", Settings(scenarios=[])), handler)
    assert (refused.value.status, refused.value.type) == (403, "access_denied")
    assert "loopback" in refused.value.message
    admitted = await control_guard(remote_request("10.1.2.3", Settings(scenarios=[], admin_token=TOKEN)), handler)
    assert admitted.text == "in"


@pytest.mark.parametrize(
    ("remote", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.3.4.5", True),
        ("::1", True),
        ("10.0.0.5", False),
        ("192.168.1.2", False),
        ("2001:db8::1", False),
        ("localhost", False),
        (None, False),
    ],
)
def test_what_counts_as_loopback(remote: str | None, loopback: bool):
    assert is_loopback(remote) is loopback


@pytest.mark.parametrize(
    ("method", "route", "status", "type"),
    [
        ("GET", "nowhere", 404, "not_found"),
        ("GET", "scenarios/reload", 405, "method_not_allowed"),
        ("PATCH", "clock", 405, "method_not_allowed"),
        ("POST", "journal", 405, "method_not_allowed"),
        ("DELETE", "scenarios", 405, "method_not_allowed"),
    ],
)
def test_unknown_routes_and_methods_get_the_envelope(
    make_server: MakeServer, method: str, route: str, status: int, type: str
):
    error_of(control(make_server(RULES), method, route), status, type)


@pytest.mark.parametrize(
    ("method", "route", "body"),
    [
        ("POST", "clock", "{not json"),
        ("POST", "sessions/reset", "[1,"),
        ("POST", "clock", '"a string"'),
    ],
)
def test_bad_json_gets_a_clear_400(make_server: MakeServer, method: str, route: str, body: str):
    response = control(make_server(RULES), method, route, text=body, content_type="application/json")
    assert "JSON" in error_of(response, 400, "invalid_params")["message"]
