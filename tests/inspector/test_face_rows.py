"""The inspector with the faces beyond chat (issue 42), in headless Chromium against a real server: an
embeddings request, which the face answers without rules, is not UNMATCHED (nor counted, nor given a
"why not matched" tab of chat rules); a Vertex / Gemini request shows the user's contents, the calls
and their results as bubbles; each list row shows the request's last user text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import FROZEN
from tests.support.clients import http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

SCENARIO = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: Hello from the emulator}
  - name: weather-call
    match: {api: vertex, tools: [get_weather], tool_result: false}
    reply:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: weather-answer
    match: {api: vertex, tool_result: {name: get_weather}}
    reply: {content: It is sunny in Paris.}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    folder = tmp_path_factory.mktemp("inspector-faces")
    (folder / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False)) as running:
        yield running


def journal(server: EmulatorServer, session: str) -> list[dict[str, Any]]:
    return list(http(f"{server.origin}/_emulator/journal?session={session}").json()["entries"])


def row(page: Page, seq: int) -> Any:
    return page.locator(f"#requests tbody tr[data-seq='{seq}']")


def test_an_embeddings_request_is_not_unmatched(server: EmulatorServer, visit: Any) -> None:
    client = sdk(server, "embed")
    raw = client.embeddings.with_raw_response.create(model="openai/text-embedding-3-small", input="a sentence to embed")
    assert raw.parse().data[0].embedding
    assert "x-emulator-unmatched" not in {k.lower() for k in raw.headers}
    [entry] = journal(server, "embed")
    assert entry["api"] == "embeddings" and entry["unscripted"] is True and entry["near_misses"] == []
    assert http(f"{server.origin}/_emulator/journal/unmatched?session=embed").json()["entries"] == []
    page = visit(server.origin).open()
    expect(row(page, entry["seq"])).to_be_visible()
    expect(row(page, entry["seq"]).locator(".unmatched")).to_have_count(0)
    expect(page.locator("#counts")).to_contain_text(" 0 unmatched")
    row(page, entry["seq"]).click()
    expect(page.locator("#detail-title")).to_contain_text(f"#{entry['seq']}")
    expect(page.locator("#tabs [data-tab=why]")).to_be_hidden()
