"""Issue 31, item 5: the stores a face keeps for later reads are bounded by bytes, as the journal
is. ObjectiveAI's stored completions kept whole request bodies (17 prompts of 30 MB: RSS 60 to
553 MB, which clearing the journal did not free); Responses' stored responses kept their input
(+3.6 MB for each 2.45 MB input, up to 1,000 per session). Memory after these loops stays
within 150 MB of where it started."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACES
from zenmux_emulator.faces.objectiveai.face import STORED_REQUEST_BYTES
from zenmux_emulator.faces.responses.store import STORED_BYTES, ResponseStore, StoredResponse

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
GROWTH = 150 * 1024 * 1024
CHAT, ANTHROPIC, RESPONSES, OBJECTIVEAI = FACES[:4]


def rss() -> int:
    """This process's resident memory in bytes (the servers of these tests run in it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_thirty_mb_query_prompts_are_stored_as_their_size_and_hash(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, max_body_bytes=40 * 1024 * 1024))
    wire.timeout = 300  # 30 MB a request, on a loaded machine
    wire.close()
    huge = "x" * (30 * 1024 * 1024)
    ids = []
    start = 0
    for i in range(9):
        if i == 1:
            start = rss()  # after one request as large: what serving one takes is not what keeping them takes
        status, _, body = wire.ask(
            OBJECTIVEAI, {**OBJECTIVEAI.valid(), "messages": [{"role": "user", "content": f"{i} {huge}"}]}
        )
        assert status == 200, body[:300]
        ids.append(orjson.loads(body)["id"])
    assert rss() - start < GROWTH, f"RSS grew {(rss() - start) >> 20} MiB"
    status, _, body = wire.send("GET", f"/objectiveai/query/completions/{ids[-1]}")
    assert status == 200
    stored = orjson.loads(body)
    assert stored["request"]["bytes"] > STORED_REQUEST_BYTES and "xxh3_128" in stored["request"]
    assert stored["response"]["id"] == ids[-1]
    status, _, body = wire.send("GET", "/objectiveai/query/completions")
    assert [item["id"] for item in orjson.loads(body)["data"]][:9] == ids[::-1]


def test_responses_with_huge_inputs_are_kept_within_the_stores_bytes(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES + "models:\n  acme/huge-window: {context_length: 100000000}\n"))
    ids = []
    start = 0
    for i in range(31):
        if i == 1:
            start = rss()
        status, _, body = wire.ask(
            RESPONSES, {**RESPONSES.valid(), "model": "acme/huge-window", "input": f"{i} " + "y" * (4 * 1024 * 1024)}
        )
        assert status == 200, body[:300]
        ids.append(orjson.loads(body)["id"])
    assert rss() - start < GROWTH, f"RSS grew {(rss() - start) >> 20} MiB"
    assert wire.send("GET", f"/api/v1/responses/{ids[-1]}")[0] == 200
    assert wire.send("GET", f"/api/v1/responses/{ids[0]}")[0] == 404  # the oldest went to make room


def test_the_response_store_drops_the_oldest_response_of_any_session_past_its_bytes():
    store = ResponseStore(size=3_000)
    big = StoredResponse({"id": "x"}, [{"text": "z" * 900}], [])
    for n in range(4):
        store.put(f"s{n % 2}", f"resp_{n}", big)
    assert store.bytes <= 3_000 and len(store) == 3
    assert store.get("s0", "resp_0") is None and store.get("s1", "resp_1") is not None
    assert store.delete("s1", "resp_3") and not store.delete("s1", "resp_3")
    assert STORED_BYTES >= 32 * 1024 * 1024
