"""Issue 40, item 7: reading the whole journal (32 MiB of bodies) in one answer held the event loop
180 to 540 ms. A page carries at most `PAGE_BYTES` of entries (always one), the newest; its `older`
leads to the pages before, and following it reads every entry once."""

from __future__ import annotations

from tests.conftest import MakeServer
from tests.control.helpers import control, ok
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACES
from zenmux_emulator.server.control.journal import PAGE_BYTES

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
CHAT = FACES[0]
BODY = 200 * 1024
"""Each request's text: under the journal's 256 KiB a body, so each is kept whole."""


def test_a_journal_of_large_bodies_is_read_in_pages_within_the_bound(make_server: MakeServer, wire_to: WireTo) -> None:
    server = make_server(RULES)
    wire = wire_to(server)
    sent = 60  # 12 MB of bodies: three pages at least
    for i in range(sent):
        body = {**CHAT.valid(), "messages": [{"role": "user", "content": f"{i} " + "z" * BODY}]}
        assert wire.ask(CHAT, body)[0] == 200
    seen: list[int] = []
    before = ""
    pages = 0
    while True:
        answer = control(server, "GET", f"journal{before}")
        assert len(answer.text.encode()) <= PAGE_BYTES + 4096, len(answer.text)
        page = ok(answer)
        assert page["total"] == sent - len(seen) and page["count"] == len(page["entries"]) > 0
        seen = [entry["seq"] for entry in page["entries"]] + seen
        pages += 1
        if page["older"] is None:
            break
        before = f"?before={page['older']}"
    assert pages >= 3 and seen == list(range(1, sent + 1))
    assert page["entries"][0]["body"]["messages"][0]["content"].startswith("0 z")  # the oldest, whole
