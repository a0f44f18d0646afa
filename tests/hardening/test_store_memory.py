"""Issue 40, item 6: the stores bounded by JSON bytes held five to ten times that in memory, the
objects themselves being kept: Anthropic threads reached 710 MB, stored Responses 409 MB, each under
its 64 MiB bound. They keep the compact JSON now, so the bound is what they hold."""

from __future__ import annotations

from typing import Any

import orjson

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACES, conversation
from tests.hardening.test_store_bytes import rss
from zenmux_emulator.state.per_session import STORED_BYTES

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
ANTHROPIC, RESPONSES = FACES[1], FACES[2]
GROWTH = STORED_BYTES + 64 * 1024 * 1024
"""docs/reference/limits.md: a store holds its 64 MiB of JSON, and the process some tens of MiB
more serving the requests that fill it (the largest of them is parsed whole)."""


def test_150_threads_of_16383_messages_stay_within_the_stores_bound(make_server: MakeServer, wire_to: WireTo) -> None:
    wire = wire_to(make_server(RULES))
    wire.timeout = 120
    body: dict[str, Any] = {**conversation(ANTHROPIC, 16_383), "thread": {"type": "create"}}
    raw = orjson.dumps(body)
    ids = []
    start = 0
    for i in range(150):
        if i == 2:
            start = rss()  # after two requests as large: what serving one takes is not what keeping them takes
        status, _, answer = wire.post_json(ANTHROPIC.route, raw, list(ANTHROPIC.headers))
        assert status == 200, answer[:300]
        ids.append(orjson.loads(answer)["id"])
    grown = rss() - start
    assert grown < GROWTH, f"RSS grew {grown >> 20} MiB"
    follow = {**ANTHROPIC.valid(), "thread": {"type": "continue", "previous_message_id": ids[-1]}}
    status, _, answer = wire.ask(ANTHROPIC, follow)
    assert status == 200, answer[:300]
