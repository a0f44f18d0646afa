"""Issue 37 item 3: the inspector's rules view draws each scenario as its states and the rules that
move it, with where each session stands, and marks a when_state no move reaches and a state no rule
leaves (headless Chromium against a real server)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import MakeServer
from tests.scenarios.test_states import FLOW
from tests.state.helpers import ask, content, control

ORPHAN = """
  - name: orphan
    scenario: agent
    when_state: lost
    match: {last_user: {contains: lost}}
    reply: {content: never reached}
  - name: break
    scenario: provider
    set_state: {to: down, after_s: 60, then: started}
    match: {last_user: {contains: break}}
    reply: {content: broken}
"""


def test_the_rules_view_draws_the_scenarios_and_where_each_session_stands(make_server: MakeServer, visit):
    server = make_server(FLOW + ORPHAN)
    for session, times in (("one", 1), ("two", 2), ("three", 0)):
        for _ in range(times):
            content(ask(server.origin, session, "weather"))
    control(server.origin, "states/agent", {"state": "done", "session": "three"}, method="PUT")
    content(ask(server.origin, "four", "break it"))
    page = visit(server.origin).open()
    page.click("#views [data-view=rules]")
    agent = page.locator(".scenario[data-scenario=agent]")
    expect(agent.locator("svg.machine g.state")).to_have_count(4)  # started, tool_called, done, lost
    expect(agent.locator("svg.machine g.move")).to_have_count(2)
    expect(agent.locator("g.move[data-from=started][data-to=tool_called] text")).to_have_text("call-tool")
    expect(agent.locator("g.state.unreachable")).to_have_attribute("data-state", "lost")
    expect(agent.locator("g.state.dead-end")).to_have_attribute("data-state", "done")
    expect(agent.locator("tr[data-state=tool_called] td.sessions")).to_have_text("one")
    expect(agent.locator("tr[data-state=done] td.sessions")).to_have_text("three, two")
    expect(agent.locator("tr[data-state=lost] td.note")).to_have_text("no rule moves here")
    expect(agent.locator("tr[data-state=done] td.note")).to_have_text("no rule leaves")
    provider = page.locator(".scenario[data-scenario=provider]")
    expect(provider.locator("g.move[data-from=down][data-to=started] text")).to_have_text("break (after 60 s)")
    expect(provider.locator("tr[data-state=down] td.sessions")).to_have_text("four → started in 60 s")
    page.locator(".scenario[data-scenario=agent]").screenshot(path="/tmp/st/states.png")
