"""The inspector with the faces beyond chat (issue 42), in headless Chromium against a real server: an
embeddings request, which the face answers without rules, is not UNMATCHED (nor counted, nor given a
"why not matched" tab of chat rules); a Vertex / Gemini request shows the user's contents, the calls
and their results as bubbles; each list row shows the request's last user text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.genai import types
from playwright.sync_api import Page, expect

from tests.conftest import FROZEN
from tests.faces.vertex.helpers import MODEL as GEMINI
from tests.faces.vertex.helpers import client as gemini_client
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


WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The weather in a city",
            parameters=types.Schema(
                type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}, required=["city"]
            ),
        )
    ]
)


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


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_gemini_conversation_shows_the_users_contents_calls_and_results(
    server: EmulatorServer, visit: Any, stream: bool
) -> None:
    session = f"gemini-{stream}"
    gemini = gemini_client(server, session, vertexai=False)
    config = types.GenerateContentConfig(
        tools=[WEATHER],
        system_instruction="You report the weather.",
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    asked = types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")])
    first = gemini.models.generate_content(model=GEMINI, contents=[asked], config=config)
    assert first.function_calls and first.candidates and first.candidates[0].content
    result = types.Part.from_function_response(name="get_weather", response={"sky": "sunny"})
    contents = [asked, first.candidates[0].content, types.Content(role="user", parts=[result])]
    if stream:
        text = "".join(
            c.text or "" for c in gemini.models.generate_content_stream(model=GEMINI, contents=contents, config=config)
        )
    else:
        text = gemini.models.generate_content(model=GEMINI, contents=contents, config=config).text or ""
    assert text == "It is sunny in Paris."
    seq = journal(server, session)[-1]["seq"]
    page = visit(server.origin).open()
    expect(row(page, seq).locator(".last-user")).to_have_text("What is the weather in Paris?")
    row(page, seq).click()
    page.click("#tabs [data-tab=conversation]")
    bubbles = page.locator(".bubble")
    expect(bubbles).to_have_count(5)  # the system instruction, the user, the call, its result, the answer
    expect(bubbles.nth(0)).to_contain_text("You report the weather.")
    expect(bubbles.nth(1)).to_contain_text("What is the weather in Paris?")
    expect(bubbles.nth(2).locator(".part.call")).to_contain_text("get_weather")
    expect(bubbles.nth(3).locator(".part.result")).to_contain_text("sunny")
    expect(bubbles.nth(4)).to_contain_text("It is sunny in Paris.")


def test_each_row_shows_its_requests_last_user_text(server: EmulatorServer, visit: Any) -> None:
    client = sdk(server, "rows")
    for text in ("hello, first of two", "hello, the second one"):
        client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": text}])
    first, second = (entry["seq"] for entry in journal(server, "rows")[-2:])
    page = visit(server.origin).open()
    expect(row(page, first).locator(".last-user")).to_have_text("hello, first of two")
    expect(row(page, second).locator(".last-user")).to_have_text("hello, the second one")
    page.fill("#f-text", "second one")  # the free-text filter reads it too
    expect(row(page, first)).to_have_count(0)
    expect(row(page, second)).to_be_visible()
