"""Issue 17, defect 4: the journal is bounded by bytes as well as by count (large bodies and
responses kept as their size and hash), its API pages, and aborted streams are counted."""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import orjson
import xxhash

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACES, Wire

PAD, WORDS = "x" * 20_000, "word " * 200
RULES = f"""\
rules:
  - name: big
    match: {{last_user: {{contains: big}}}}
    reply: {{raw: {{body: '{{"pad": "{PAD}"}}'}}}}
  - name: slow
    match: {{last_user: {{contains: slow}}}}
    reply: {{content: "{WORDS}", stream: {{chunk_tokens: 1, chunk_ms: 50}}}}
  - name: hi
    reply: {{content: hi}}
"""


def journal(wire: Wire, query: str = "") -> dict[str, Any]:
    status, _, body = wire.send("GET", f"/_emulator/journal{query}")
    assert status == 200, body
    return dict(orjson.loads(body))


def health(wire: Wire) -> dict[str, Any]:
    return dict(orjson.loads(wire.send("GET", "/_emulator/health")[2])["journal"])


def chat(text: str) -> dict[str, Any]:
    return {**FACES[0].valid(), "messages": [{"role": "user", "content": text}]}


def test_a_body_past_the_limit_is_kept_as_its_size_and_hash(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, journal_body_bytes=4096))
    raw = json.dumps(chat("hello " + "y" * 10_000)).encode()
    assert wire.ask(FACES[0], raw)[0] == 200
    assert wire.ask(FACES[0], chat("small"))[0] == 200
    big, small = journal(wire)["entries"]
    assert big["body"]["bytes"] == len(raw) and big["body"]["xxh3_128"] == xxhash.xxh3_128_hexdigest(raw)
    assert "not kept" in big["body"]["summary"]
    assert small["body"] == chat("small")
    assert big["bytes"] < 4096 and small["bytes"] > len(json.dumps(chat("small")))


def test_a_response_past_the_limit_is_kept_as_its_size_and_hash(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, journal_body_bytes=4096))
    status, _, body = wire.ask(FACES[0], chat("big"))
    assert status == 200 and len(body) > 20_000
    [entry] = journal(wire)["entries"]
    assert entry["response"]["bytes"] == len(body)
    assert entry["response"]["xxh3_128"] == xxhash.xxh3_128_hexdigest(body)


def test_the_journal_keeps_no_more_bytes_than_its_limit(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, journal_bytes=50_000, journal_body_bytes=30_000))
    for i in range(20):
        assert wire.ask(FACES[0], chat(f"big {i}"))[0] == 200
    listed = journal(wire)
    kept = listed["entries"]
    assert 0 < len(kept) < 20
    assert [e["body"]["messages"][0]["content"] for e in kept] == [f"big {i}" for i in range(20 - len(kept), 20)]
    accounted = health(wire)
    assert accounted["bytes"] == sum(e["bytes"] for e in kept) <= 50_000 == accounted["max_bytes"]


def test_the_journal_api_pages_with_a_seq_cursor(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    for i in range(10):
        wire.ask(FACES[0], chat(f"hi {i}"))
    everything = [e["seq"] for e in journal(wire)["entries"]]
    pages: list[list[int]] = []
    query = "?limit=3"
    while True:
        page = journal(wire, query)
        assert page["count"] == len(page["entries"]) <= 3
        pages.insert(0, [e["seq"] for e in page["entries"]])
        if page["older"] is None:
            break
        assert page["older"] == pages[0][0]
        query = f"?limit=3&before={page['older']}"
    assert [seq for page in pages for seq in page] == everything and len(pages) == 4
    assert [e["seq"] for e in journal(wire, f"?after={everything[6]}")["entries"]] == everything[7:]
    assert journal(wire, "?limit=3")["total"] == 10


def abort_mid_stream(wire: Wire) -> None:
    """A streamed request whose client reads the first bytes of the stream and hangs up."""
    body = json.dumps({**chat("slow"), "stream": True}).encode()
    with socket.create_connection((wire.host, wire.port)) as sock:
        sock.sendall(
            b"POST /api/v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n"
            b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        assert b"200" in sock.recv(4096)


def test_aborted_streams_are_counted_and_bounded(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, journal_bytes=20_000))
    for _ in range(30):
        abort_mid_stream(wire)
    for _ in range(100):  # the last stream ends when the server notices its client is gone
        entries = journal(wire)["entries"]
        if entries and all(e["duration_ms"] is not None for e in entries):
            break
        wire.ask(FACES[0], chat("hi"))
    entries = [e for e in journal(wire)["entries"] if e["duration_ms"] is not None]
    gone = [e for e in entries if e["client_gone"]]
    assert gone and all(e["events_sent"] < 200 for e in gone)
    assert health(wire)["bytes"] <= 20_000


def test_a_kept_stream_s_timeline_holds_about_four_bytes_an_event(make_server: MakeServer, wire_to: WireTo):
    """Issue 43's memory per stream: the journal keeps every kept stream's timeline (and an open
    stream adds to its own until its last event); a list of floats held 32 bytes an event."""
    server = make_server(
        "rules:\n  - {name: paced, reply: {content: '" + WORDS + "', stream: {chunk_tokens: 1, chunk_ms: 1}}}\n"
    )
    wire = wire_to(server)
    status, _, body = wire.ask(FACES[0], {**chat("paced"), "stream": True})
    assert status == 200 and body.count(b"\n\n") > 200
    [entry] = server.state.journal.entries()
    assert entry.events_sent == body.count(b"\n\n") == len(entry.event_offsets_ms())
    assert sys.getsizeof(entry.sent_at) <= 4 * entry.events_sent + 256
    offsets = journal(wire)["entries"][0]["event_offsets_ms"]
    assert len(offsets) == entry.events_sent and offsets == sorted(offsets) and offsets[-1] >= 200
