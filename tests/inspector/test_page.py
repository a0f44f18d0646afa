"""The inspector page in headless Chromium, against a real server: the live list (matched and unmatched,
new requests without a reload, pause, filters), a request's detail (why it did not match, the SSE
timeline, the conversation), the "would this match?" box against the journal, the rules, the actions
(curl, a rule made from a request that loads and matches, journal downloads, a session reset), and not
one request to another origin."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from playwright.sync_api import Page, expect

from tests.conftest import FROZEN
from tests.faces.anthropic.helpers import sdk as anthropic_sdk
from tests.faces.anthropic.test_sdk import SCENARIO as ANTHROPIC_SCENARIO
from tests.faces.anthropic.test_sdk import tool_loop
from tests.inspector.conftest import screenshot
from tests.support.clients import API_KEY, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

SCENARIO = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: Hello from the emulator}
  - name: weather-call
    match: {tools: [get_weather], tool_result: false}
    reply:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - name: weather-answer
    match: {tools: [get_weather], tool_result: true}
    reply: {content: It is sunny in Paris., reasoning: "The tool said sunny, so I say so."}
  - name: paced
    match: {last_user: {contains: stream me}}
    reply:
      content: one two three four five six seven eight
      stream: {first_token_ms: 60, chunk_ms: 40, chunk_tokens: 1, fault: {kind: stall, after_chunks: 5, stall_ms: 300}}
  - name: steps
    match: {last_user: {contains: step}}
    replies: [{content: first}, {content: second}]
  - name: never-used
    match: {last_user: {contains: nobody says this}}
    reply: {content: unused}
"""

MODEL = "openai/gpt-5.4-mini"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    folder = tmp_path_factory.mktemp("inspector")
    (folder / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False)) as running:
        yield running


def say(server: EmulatorServer, session: str, text: str, **options: Any) -> Any:
    return sdk(server, session).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": text}], **options
    )


def journal(server: EmulatorServer, **query: str) -> list[dict[str, Any]]:
    params = "&".join(f"{k}={v}" for k, v in query.items())
    return http(f"{server.origin}/_emulator/journal?{params}").json()["entries"]


def row(page: Page, seq: int) -> Any:
    return page.locator(f"#requests tbody tr[data-seq='{seq}']")


def opened(server: EmulatorServer, visit: Any, session: str) -> tuple[dict[str, Any], Page]:
    """The page, open on the one request of `session`, once its entry has loaded (a button of the
    detail pane clicked before that has no entry to act on: a loaded machine lost that race)."""
    [entry] = journal(server, session=session)
    page = visit(server.origin).open()
    row(page, entry["seq"]).click()
    expect(page.locator("#detail-title")).to_contain_text(f"#{entry['seq']} {entry['method']} {entry['path']}")
    return entry, page


def last_seq(server: EmulatorServer, session: str) -> int:
    return int(journal(server, session=session)[-1]["seq"])


def test_lists_matched_and_unmatched_requests_and_new_ones_without_a_reload(server, visit, tmp_path):
    say(server, "list", "hello there")
    say(server, "list", "something no rule expects")
    matched, unmatched = (entry["seq"] for entry in journal(server, session="list")[-2:])
    shown = visit(server.origin)
    page = shown.open()
    expect(row(page, matched).locator("td.rule")).to_contain_text("greet")
    expect(row(page, unmatched).locator(".unmatched")).to_have_text("UNMATCHED")

    say(server, "list", "hello again, after the page loaded")
    later = last_seq(server, "list")
    expect(row(page, later).locator("td.rule")).to_contain_text("greet")  # pushed, no reload
    expect(row(page, later)).to_contain_text(MODEL)
    expect(row(page, later)).to_contain_text("200")

    page.select_option("#f-match", "unmatched")
    expect(row(page, unmatched)).to_be_visible()
    expect(row(page, matched)).to_have_count(0)
    page.select_option("#f-match", "")
    page.fill("#f-text", "no rule expects")  # free text reads the path, model, rule, session…: not the body
    expect(row(page, matched)).to_have_count(0)
    page.fill("#f-text", "")
    page.select_option("#f-session", "list")
    expect(page.locator("#requests tbody tr")).to_have_count(3)
    page.select_option("#f-session", "")

    page.click("#pause")
    say(server, "list", "hello while paused")
    paused = last_seq(server, "list")
    expect(page.locator("#live")).to_contain_text("1 new")
    expect(row(page, paused)).to_have_count(0)
    page.click("#pause")
    expect(row(page, paused)).to_have_count(1)
    screenshot(page, "list", tmp_path)
    assert shown.foreign() == []


def test_an_unmatched_request_shows_its_nearest_rules_field_by_field(server, visit):
    say(server, "why", "hullo, anyone?")
    entry, page = opened(server, visit, "why")
    page.click("#tabs [data-tab=why]")
    nearest = page.locator(".near")
    expect(nearest).to_have_count(3)
    names = [entry_near["rule"] for entry_near in entry["near_misses"]]
    assert [nearest.nth(i).locator("h4").inner_text().split(" ")[0] for i in range(3)] == names
    first = nearest.nth(0)
    expect(first.locator(".where")).to_have_text(entry["near_misses"][0]["where"])  # file and line
    missed = entry["near_misses"][0]["misses"][0]
    failing = first.locator("tr.miss", has_text=missed["key"])
    expect(failing.locator("td").nth(1)).to_have_text(missed["expected"])
    expect(failing.locator("td").nth(2)).to_have_text(missed["actual"])
    expect(failing.locator("td").nth(3)).to_have_text("✗")


def test_a_streamed_request_shows_its_timeline(server, visit, tmp_path):
    chunks = list(say(server, "stream", "stream me please", stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices).startswith("one two")
    [entry] = journal(server, session="stream")
    offsets = entry["event_offsets_ms"]
    assert len(offsets) == len(entry["response"]) and offsets == sorted(offsets)
    assert offsets[-1] - offsets[0] >= 300  # the scripted stall, at least
    page = visit(server.origin).open()
    row(page, entry["seq"]).click()
    page.click("#tabs [data-tab=response]")
    expect(page.locator(".timeline .tick")).to_have_count(len(offsets))
    expect(page.locator(".timeline .tick.stall")).to_have_count(1)  # the stall stands out
    ticks = page.locator(".timeline .tick")
    xs = [ticks.nth(i).bounding_box()["x"] for i in range(len(offsets))]  # drawn at their offsets
    assert xs == sorted(xs) and xs[-1] - xs[0] > 0.5 * page.locator(".timeline").bounding_box()["width"]
    expect(page.locator(".events tbody tr")).to_have_count(len(offsets))
    expect(page.locator(".events tbody tr").last).to_contain_text("[DONE]")
    screenshot(page, "timeline", tmp_path)


def test_a_tool_loop_shows_as_a_conversation(server, visit, tmp_path):
    client = sdk(server, "conversation")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You report the weather."},
        {"role": "user", "content": "What is the weather in Paris?"},
    ]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
    call = first.choices[0].message.tool_calls[0]
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"sky": "sunny"})},
    ]
    final = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], reasoning_effort="low")
    assert final.choices[0].message.content == "It is sunny in Paris."
    seq = last_seq(server, "conversation")
    page = visit(server.origin).open()
    row(page, seq).click()
    page.click("#tabs [data-tab=conversation]")
    bubbles = page.locator(".bubble")
    expect(bubbles).to_have_count(5)  # system, user, the tool call, its result, the answer
    expect(bubbles.nth(2).locator(".part.call")).to_contain_text("get_weather")
    expect(bubbles.nth(3).locator(".part.result")).to_contain_text("sunny")
    expect(bubbles.nth(4)).to_contain_text("It is sunny in Paris.")
    expect(bubbles.nth(4).locator(".part.reasoning")).to_contain_text("The tool said sunny")
    screenshot(page, "conversation", tmp_path)


def test_would_this_match_gives_the_journals_nearest_rules(server, visit):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "greetings, robot"}]}
    http(
        server.base_url + "/chat/completions",
        json.dumps(body).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {API_KEY}",
            "Content-Type": "application/json",
            "X-Emulator-Session": "paste",
        },
    )
    [entry] = journal(server, session="paste")
    page = visit(server.origin).open()
    page.click("#views [data-view=match]")
    page.fill("#m-path", "/api/v1/chat/completions")
    page.fill("#m-body", json.dumps(body))
    page.click("#m-check")
    expect(page.locator("#m-verdict")).to_have_text("No rule matches. The nearest:")
    shown = [h.split(" ")[0] for h in page.locator(".near h4").all_inner_texts()]
    assert shown == [near["rule"] for near in entry["near_misses"]]
    assert len(journal(server, session="paste")) == 1  # checking sent nothing

    page.fill("#m-body", json.dumps({**body, "messages": [{"role": "user", "content": "hello"}]}))
    page.click("#m-check")
    expect(page.locator("#m-verdict")).to_contain_text("Matches greet (")
    page.fill("#m-body", json.dumps({"messages": []}))
    page.click("#m-check")
    expect(page.locator("#m-verdict")).to_contain_text("rejects it: 400")


def test_a_rule_made_from_a_request_loads_and_matches_it(server, visit):
    say(server, "make", "tell me something unexpected")
    entry, page = opened(server, visit, "make")
    page.click("#make-rule")
    made = page.locator("#copied").inner_text()
    loaded = http(
        f"{server.origin}/_emulator/scenarios?name=made",
        made.encode(),
        method="POST",
        headers={"Content-Type": "application/yaml"},
    )
    assert loaded.status == 201, loaded.text
    again = say(server, "make-again", "tell me something unexpected")
    [answered] = journal(server, session="make-again")
    assert answered["rule"] == f"from-request-{entry['seq']}"
    assert again.choices[0].message.content == entry["response"]["choices"][0]["message"]["content"]
    assert http(f"{server.origin}/_emulator/scenarios/made", method="DELETE").status == 200


def test_a_rule_made_from_text_yaml_refuses_raw_loads_and_matches_it(server, visit):
    awkward = "del\x7f c1\x85\x9f sep\u2028\u2029 bom\ufeff end"  # YAML refuses or folds these raw
    say(server, "make-awkward", awkward)
    entry, page = opened(server, visit, "make-awkward")
    page.click("#make-rule")
    made = page.locator("#copied").inner_text()
    assert "\x7f" not in made and "\\u007f" in made
    loaded = http(
        f"{server.origin}/_emulator/scenarios?name=made-awkward",
        made.encode(),
        method="POST",
        headers={"Content-Type": "application/yaml"},
    )
    assert loaded.status == 201, loaded.text
    say(server, "make-awkward-again", awkward)
    [answered] = journal(server, session="make-awkward-again")
    assert answered["rule"] == f"from-request-{entry['seq']}"  # the same text, read back from the escapes
    assert http(f"{server.origin}/_emulator/scenarios/made-awkward", method="DELETE").status == 200


def test_no_rule_is_made_for_a_face_rules_do_not_answer(server, visit):
    headers = {"Authorization": "Bearer sk-mg-v1-inspector"}
    assert http(f"{server.base_url}/management/payg/balance", headers=headers).status == 200
    entry = journal(server, path="/api/v1/management/payg/balance")[-1]
    assert entry["api"] == "platform"
    page = visit(server.origin).open()
    row(page, entry["seq"]).click()
    expect(page.locator("#detail-title")).to_contain_text(f"#{entry['seq']} GET {entry['path']}")
    page.click("#make-rule")
    expect(page.locator("#notice")).to_contain_text("rules do not answer the platform face")
    expect(page.locator("#copied")).to_have_count(0)


def test_copy_as_curl_sends_the_same_request(server, visit):
    say(server, "curl", "hello from curl")
    _, page = opened(server, visit, "curl")
    page.click("#copy-curl")
    command = page.locator("#copied").inner_text()
    assert command.startswith(f"curl '{server.origin}/api/v1/chat/completions'")
    assert API_KEY not in command and "$ZENMUX_API_KEY" in command  # the key stays masked
    ran = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, "ZENMUX_API_KEY": API_KEY},
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["choices"][0]["message"]["content"] == "Hello from the emulator"
    first, again = journal(server, session="curl")
    assert again["body"] == first["body"] and again["rule"] == "greet"
    kept = {k: v for k, v in first["headers"].items() if k.lower() not in ("accept-encoding", "connection")}
    assert kept.items() <= again["headers"].items()  # the SDK's headers, its key masked in both


def test_rules_show_answers_positions_and_the_rules_never_used(server, visit):
    say(server, "rules", "step one")
    page = visit(server.origin).open()
    expect(row(page, last_seq(server, "rules"))).to_be_visible()
    page.click("#views [data-view=rules]")
    never = page.locator("#rules tr[data-rule='never-used']")
    expect(never).to_have_class("unused")
    expect(never).to_contain_text("never")
    expect(page.locator("#rules tr[data-rule='steps']")).to_contain_text("rules: 1/2")
    listed = http(f"{server.origin}/_emulator/scenarios").json()["rules"]
    unused = [rule["name"] for rule in listed if not rule["hits"]["total"]]
    expect(page.locator("#unused-count")).to_have_text(f"{len(unused)} never used")
    assert "never-used" in unused


def test_reset_a_session_and_download_the_journal(server, visit, tmp_path):
    assert say(server, "reset", "step").choices[0].message.content == "first"
    assert say(server, "reset", "step").choices[0].message.content == "second"
    page = visit(server.origin).open()
    row(page, last_seq(server, "reset")).click()
    page.click("#reset-session")
    expect(page.locator("#notice")).to_contain_text("its sequences start again")
    assert say(server, "reset", "step").choices[0].message.content == "first"

    with page.expect_download() as downloaded:
        page.click("#download-har")
    har = json.loads(Path(downloaded.value.path()).read_text(encoding="utf-8"))
    seqs = {e["seq"] for e in journal(server)}
    assert {e["_seq"] for e in har["log"]["entries"]} == seqs
    assert all(e["request"]["url"].startswith(server.origin) for e in har["log"]["entries"])
    with page.expect_download() as downloaded:
        page.click("#download-json")
    assert {e["seq"] for e in json.loads(Path(downloaded.value.path()).read_text(encoding="utf-8"))} == seqs


def test_the_page_is_read_only_and_guarded_like_the_control_api(server):
    page = http(f"{server.origin}/_emulator/ui/")
    assert page.status == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    assert http(f"{server.origin}/_emulator/ui/", b"{}", method="POST").status == 405
    assert http(f"{server.origin}/_emulator/ui/../../etc/passwd").status == 404
    assert http(f"{server.origin}/_emulator/ui/app.py").status == 404


def test_under_an_admin_token_the_page_opens_with_it_and_keeps_it_for_the_control_api(make_server, visit):
    guarded = make_server(SCENARIO, admin_token="s3cret-token")
    assert http(f"{guarded.origin}/_emulator/ui/").status == 403
    assert http(f"{guarded.origin}/_emulator/ui/?token=wrong").status == 403
    assert http(f"{guarded.origin}/_emulator/journal?token=s3cret-token").status == 403  # the page's URL only
    say(guarded, "guarded", "hello behind a token")
    shown = visit(guarded.origin)
    shown.page.goto(f"{guarded.origin}/_emulator/ui/?token=s3cret-token")
    page = shown.page
    expect(page.locator("#requests tbody tr")).to_have_count(1)  # the live list, through the cookie
    assert "token" not in page.url  # dropped from the address bar
    page.locator("#requests tbody tr").click()
    expect(page.locator("#detail-title")).to_contain_text("200")  # the journal, through the cookie


def test_the_index_pages_link_the_inspector(server):
    for path in ("/", "/_emulator/"):
        page = http(server.origin + path, headers={"Accept": "text/html"})
        assert f'href="{server.origin}/_emulator/ui/"' in page.text
        assert http(server.origin + path).json()["inspector"] == f"{server.origin}/_emulator/ui/"


def test_passed_back_thinking_shows_its_signature_check(make_server, visit):
    anthropic_server = make_server(ANTHROPIC_SCENARIO)
    with anthropic_sdk(anthropic_server, "thinking") as client:
        assert tool_loop(client).content[1].text == "Paris is sunny today."
        with pytest.raises(anthropic.BadRequestError):
            tool_loop(client, tamper=True)
    intact, tampered = (
        e["seq"]
        for e in journal(anthropic_server, session="thinking")
        if e["body"]["messages"][-1]["role"] == "user" and len(e["body"]["messages"]) == 3
    )
    page = visit(anthropic_server.origin).open()
    for seq, verdict in ((intact, "signature ✓ passed the reasoning check"), (tampered, "signature ✗")):
        row(page, seq).click()
        page.click("#tabs [data-tab=conversation]")
        passed_back = page.locator(".bubble.assistant").first.locator(".part.reasoning")
        expect(passed_back).to_contain_text("I will call get_weather")
        expect(passed_back.locator(".sig")).to_contain_text(verdict)
    expect(page.locator(".bubble.error")).to_contain_text("Invalid `signature`")
