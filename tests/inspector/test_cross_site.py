"""A page of another origin (a second local server on another port) cannot drive the control API
through Chromium (issue 40, item 3): a `<form enctype="text/plain">` post and a `no-cors` fetch carry
its `Origin` and are refused, and the state is unchanged; a page reached under another name that
resolves to the emulator (DNS rebinding, played with Chromium's host resolver rules) is refused for
its `Host`. The inspector's own page, on the emulator's origin, keeps working (tests/inspector/test_page.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, Playwright

from tests.conftest import FROZEN, MakeServer
from tests.control.helpers import control, ok
from tests.inspector.conftest import CHROMIUM, FLAGS, WAIT_MS
from tests.scenarios.helpers import post_chat
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"


def attacker_page(target: str) -> bytes:
    """Two forms a page could post without asking: JSON smuggled in a text/plain form, and an empty one."""
    return f"""<!doctype html><html><body>
<form id="clock" method="POST" action="{target}/_emulator/clock" enctype="text/plain" target="one">
  <input name='{{"advance": 3600, "x": "' value='"}}'>
</form>
<form id="reset" method="POST" action="{target}/_emulator/sessions/reset" enctype="text/plain" target="two"></form>
<iframe name="one"></iframe><iframe name="two"></iframe>
<script>
  document.getElementById("clock").submit();
  document.getElementById("reset").submit();
  fetch("{target}/_emulator/clock", {{method: "POST", mode: "no-cors", body: '{{"freeze_at": 0}}'}})
    .then(() => {{ document.title = "sent"; }}, () => {{ document.title = "sent"; }});
</script></body></html>""".encode()


@pytest.fixture
def attacker(make_server: MakeServer) -> Iterator[tuple[EmulatorServer, str]]:
    """The emulator, and the URL of a page served by another local server, on another port."""
    server = make_server(RULES)
    page = attacker_page(server.origin)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{other.server_address[1]}/"
    other.shutdown()
    other.server_close()
    thread.join()


def test_a_page_of_another_origin_changes_nothing(browser: Browser, attacker: tuple[EmulatorServer, str]):
    server, url = attacker
    chat = {"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": "hi"}]}
    assert post_chat(server, chat, {"X-Emulator-Session": "victim"}).status == 200
    context = browser.new_context()
    context.set_default_timeout(WAIT_MS)
    statuses: list[tuple[str, int]] = []
    page = context.new_page()
    page.on("response", lambda r: statuses.append((r.url, r.status)) if "/_emulator/" in r.url else None)
    try:
        with page.expect_response(lambda r: r.url.endswith("/_emulator/sessions/reset")):
            page.goto(url)
        page.wait_for_function("document.title === 'sent'")
        assert sorted(statuses) and all(status == 403 for _, status in statuses), statuses
    finally:
        context.close()
    assert ok(control(server, "GET", "clock"))["now"] == FROZEN  # neither advanced nor frozen at 0
    [rule] = ok(control(server, "GET", "scenarios?session=victim"))["rules"]
    assert rule["hits"]["session"] == 1  # the session is still known with its count: nothing was reset


def test_a_rebound_name_cannot_read_the_journal(playwright: Playwright, make_server: MakeServer):
    server = make_server(RULES)
    rules = "--host-resolver-rules=MAP evil.example 127.0.0.1"
    launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*FLAGS, rules])
    try:
        page = launched.new_page()
        answer = page.goto(f"http://evil.example:{server.port}/_emulator/journal")
        assert answer is not None and answer.status == 403
        assert "Host" in page.content()
        answer = page.goto(f"http://localhost:{server.port}/_emulator/journal")  # the same server by its own name
        assert answer is not None and answer.status == 200
    finally:
        launched.close()
