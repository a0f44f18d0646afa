"""Issue 40, item 5: embeddings and rerank cost out of proportion. 2,048 inputs of fresh words
(0.66 MB) held the event loop about a second and answered 23 MB; 2,048 x "hi" at 3,072 dimensions
(a 16 kB request) answered 25 MB; rerank of 500 documents of new words held the loop 230 to 265 ms.
A large request is now prepared in a thread, once per distinct input, and a reply carries at most
`MAX_VALUES` numbers."""

from __future__ import annotations

import random

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import Wire
from tests.hardening.stalls import assert_no_stall, timed_with_probes
from zenmux_emulator.faces.embeddings.request import MAX_VALUES

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
HEADERS: list[tuple[str, str | bytes]] = []
PROBE_WITHIN_S = 0.75
"""As tests/hardening/test_schema_load.py's: the issue's 150 ms with the loaded machine's margin."""
REPLY_BYTES = MAX_VALUES * 25 + (1 << 20)
"""The documented bound of a float reply: a number is at most 24 bytes of JSON and its comma."""
ANSWER_WITHIN_S = 60.0
"""The costly request itself: its work is done in a thread now, seconds of it on the loaded machine
(a 5,000-property schema took 10.8 s there in a parallel run); the probes are what is bounded."""


def fresh_words(count: int, words: int, seed: int) -> list[str]:
    """`count` texts of `words` made-up words each, none seen before by the server."""
    rng = random.Random(seed)
    return [
        " ".join("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 9))) for _ in range(words))
        for _ in range(count)
    ]


def embeddings(wire: Wire, body: dict[str, object]) -> tuple[int, bytes]:
    status, _, answer = wire.post_json("/api/v1/embeddings", orjson.dumps(body), HEADERS)
    return status, answer


@pytest.mark.parametrize("encoding", ["float", "base64"])
def test_a_fresh_2048_input_embedding_does_not_hold_a_health_probe(
    make_server: MakeServer, wire_to: WireTo, encoding: str
):
    server = make_server(RULES)
    wire = wire_to(server)
    inputs = fresh_words(2048, 40, seed=1 if encoding == "float" else 2)
    body = {"model": "openai/text-embedding-3-small", "input": inputs, "encoding_format": encoding}
    assert len(orjson.dumps(body)) > 500_000
    timed = timed_with_probes(
        server,
        lambda: embeddings(wire, body),
        warm=lambda: embeddings(wire_to(server), {"model": "openai/text-embedding-3-small", "input": "warm"}),
    )
    assert_no_stall(timed, probe_within=PROBE_WITHIN_S, answer_within=ANSWER_WITHIN_S)
    assert timed.status == 200, timed.body[:300]
    assert len(timed.body) < REPLY_BYTES
    data = orjson.loads(timed.body)["data"]
    assert [item["index"] for item in data] == list(range(2048))
    for index in (0, 777, 2047):  # each as a request of that input alone (made on the loop) answers it
        status, alone = embeddings(
            wire, {"model": "openai/text-embedding-3-small", "input": inputs[index], "encoding_format": encoding}
        )
        assert status == 200
        assert orjson.loads(alone)["data"][0]["embedding"] == data[index]["embedding"]
    assert embeddings(wire_to(server), body) == (timed.status, timed.body)  # the same bytes again


def test_a_reply_past_the_documented_numbers_is_a_400_naming_dimensions(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    status, answer = embeddings(
        wire, {"model": "openai/text-embedding-3-large", "input": ["hi"] * 2048, "dimensions": 3072}
    )
    assert status == 400, answer[:300]
    message = orjson.loads(answer)["error"]["message"]
    assert message.startswith("Parameter dimensions is not valid: 2048 inputs of 3072 dimensions"), message
    status, answer = embeddings(wire, {"model": "openai/text-embedding-3-large", "input": ["hi"] * 2048})
    assert status == 400 and "Parameter input is not valid" in orjson.loads(answer)["error"]["message"]
    status, answer = embeddings(wire, {"model": "openai/text-embedding-3-large", "input": ["hi"] * 1024})
    assert status == 200 and len(answer) < REPLY_BYTES
    status, answer = embeddings(wire, {"model": "openai/text-embedding-3-small", "input": ["hi"] * 2048})
    assert status == 200 and len(answer) < REPLY_BYTES
    assert len(orjson.loads(answer)["data"]) == 2048


def test_a_rerank_of_500_fresh_documents_does_not_hold_a_health_probe(make_server: MakeServer, wire_to: WireTo):
    server = make_server(RULES)
    wire = wire_to(server)
    documents = fresh_words(500, 100, seed=3)  # 100 words each: the hold grows with the words
    body = {"model": "alibaba/gte-rerank-v2", "input": {"query": documents[250], "documents": documents}}

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.post_json("/api/v1/rerank", orjson.dumps(body), HEADERS)
        return status, answer

    timed = timed_with_probes(server, send)
    assert_no_stall(timed, probe_within=PROBE_WITHIN_S, answer_within=ANSWER_WITHIN_S)
    assert timed.status == 200, timed.body[:300]
    results = orjson.loads(timed.body)["results"]
    assert len(results) == 500 and results[0] == {"index": 250, "relevance_score": 1.0}
    small = {"model": "alibaba/gte-rerank-v2", "input": {"query": documents[250], "documents": documents[:3]}}
    status, _, answer = wire.post_json("/api/v1/rerank", orjson.dumps(small), HEADERS)
    assert status == 200
    scores = {r["index"]: r["relevance_score"] for r in results}
    assert {r["index"]: r["relevance_score"] for r in orjson.loads(answer)["results"]} == {
        i: scores[i] for i in range(3)
    }
