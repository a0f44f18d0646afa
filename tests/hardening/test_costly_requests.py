"""Issue 31: small requests that cost the server much, on every face. Each answers (or is refused)
promptly, never with a 5xx, while a health probe sent meanwhile answers promptly too (see stalls)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, structured_text
from tests.hardening.stalls import BIG_BODY_PROBE_S, assert_no_stall, timed_with_probes
from zenmux_emulator.foundation import tokens

DEFAULT = "rules:\n  - name: never\n    match: {last_user: never}\n    reply: {content: hi}\n"
WIDE = {
    "type": "object",
    "properties": {
        "a": {
            "type": "array",
            "minItems": 10,
            "maxItems": 10,
            "items": {
                "type": "array",
                "minItems": 100,
                "maxItems": 100,
                "items": {"type": "string", "minLength": 10_000},
            },
        }
    },
    "required": ["a"],
}
"""Issue 31's reproduction: ~400 bytes asking for 10 MB, made a word at a time, 12.3 s on the loop."""
MANY = {
    "type": "object",
    "properties": {
        "a": {
            "type": "array",
            "minItems": 100,
            "items": {
                "type": "array",
                "minItems": 100,
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "string", "minLength": 100}, "y": {"type": "integer"}},
                },
            },
        }
    },
    "required": ["a"],
}
PATTERNED = {
    "type": "object",
    "properties": {"p": {"type": "string", "pattern": "^(a{1000}){1000}$"}},
    "required": ["p"],
}


PLACES = [
    (face, where) for face in FACES for where in ("tool", "format") if (face.name, where) != ("objectiveai", "tool")
]  # ObjectiveAI makes no tool calls
"""Where each face takes a schema it makes values from: a forced tool's parameters, structured output."""


@pytest.mark.parametrize(("face", "where"), PLACES, ids=[f"{face.name}-{where}" for face, where in PLACES])
@pytest.mark.parametrize("schema", [WIDE, MANY, PATTERNED], ids=["wide", "many", "patterned"])
def test_a_costly_schema_is_refused_promptly_without_holding_the_loop(
    make_server: MakeServer, wire_to: WireTo, face: Face, schema: dict[str, Any], where: str
):
    server = make_server(DEFAULT)
    wire = wire_to(server)
    body = face.with_tool(schema) if where == "tool" else face.with_format(schema)

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.ask(face, body)
        return status, answer

    timed = timed_with_probes(server, send)
    assert_no_stall(timed)
    assert timed.status == 400, timed.body[:300]
    assert "cannot make a value for this JSON Schema at #/properties/" in face.envelope(400, timed.body)["message"]


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_schema_within_the_budget_is_made_whole_and_the_same_every_time(
    make_server: MakeServer, wire_to: WireTo, face: Face
):
    schema = {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "minItems": 40,
                "maxItems": 40,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "format": "uuid"},
                        "note": {"type": "string", "minLength": 500},
                    },
                    "required": ["id", "note"],
                },
            }
        },
        "required": ["rows"],
    }
    wire = wire_to(make_server(DEFAULT))
    body = face.with_format(schema) | ({"max_tokens": 32_000} if face.name == "anthropic" else {})
    first = wire.ask(face, body)
    again = wire.ask(face, body, [("X-Emulator-Session", "again")])
    assert first[0] == again[0] == 200, first[2][:300]
    made = orjson.loads(structured_text(face, first[2]))
    assert len(made["rows"]) == 40 and all(len(row["note"]) >= 500 for row in made["rows"])
    assert structured_text(face, again[2]) == structured_text(face, first[2])


def ensemble(llms: int, selects: int = 0) -> dict[str, Any]:
    """A Query Model of `llms` LLMs, the last `selects` of them voting."""
    models = [
        {"id": f"openai/gpt-{i}", "mode": "generate", "weight": {"type": "static", "weight": 1}}
        for i in range(llms - selects)
    ]
    models += [
        {"id": f"openai/judge-{i}", "mode": "select_thinking", "weight": {"type": "static", "weight": 1}}
        for i in range(selects)
    ]
    return {"models": models, "weight": {"type": "static"}}


OBJECTIVEAI = FACES[3]


@pytest.mark.parametrize("stream", [False, True], ids=["unary", "streamed"])
@pytest.mark.parametrize("llms", [2000, 3000])
def test_an_ensemble_past_the_llm_cap_is_objectiveais_400_at_once(
    make_server: MakeServer, wire_to: WireTo, llms: int, stream: bool
):
    """Issue 31, item 2: 2,000 LLMs x 16 stalled the server 28 s (3,000: past 60 s)."""
    server = make_server(DEFAULT)
    wire = wire_to(server)
    body = {**OBJECTIVEAI.valid(), "model": ensemble(llms), "n": 16, "stream": stream}

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.ask(OBJECTIVEAI, body)
        return status, answer

    timed = timed_with_probes(server, send)
    assert_no_stall(timed)
    assert timed.status == 400
    error = OBJECTIVEAI.envelope(400, timed.body)
    assert error["type"] == "invalid_request" and error["message"].startswith("model.models: must have at most 64")


@pytest.mark.parametrize("stream", [False, True], ids=["unary", "streamed"])
def test_the_largest_ensemble_answers_whole_without_holding_the_loop(
    make_server: MakeServer, wire_to: WireTo, stream: bool
):
    """64 LLMs (32 voting) x 16: 1,024 choices, computed in linear time, streamed as made."""
    server = make_server(DEFAULT)
    wire = wire_to(server)
    body = {**OBJECTIVEAI.valid(), "model": ensemble(64, 32), "n": 16, "stream": stream}

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.ask(OBJECTIVEAI, body)
        return status, answer

    timed = timed_with_probes(server, send, warm=lambda: wire_to(server).ask(OBJECTIVEAI, OBJECTIVEAI.valid()))
    assert_no_stall(timed, probe_within=BIG_BODY_PROBE_S)  # streamed, 7.6 MB of events: a big body's margin
    assert timed.status == 200
    if stream:
        items = [orjson.loads(line[6:]) for line in timed.body.split(b"\n\n") if line.startswith(b"data: {")]
        finals = items[-1]["choices"]
    else:
        finals = orjson.loads(timed.body)["choices"]
    assert len(finals) == 1024
    assert all(c.get("confidence") is not None for c in finals)


UNIT = "Lorem ipsum dolor sit amet, 12345 consectetur adipiscing. "
THIRTY_MB = UNIT * (30 * 1024 * 1024 // len(UNIT))
PROMPTS = {
    "count_tokens": (
        FACES[1],
        {"model": "anthropic/claude-sonnet-4", "messages": [{"role": "user", "content": THIRTY_MB}]},
    ),
    "chat-no-window": (FACES[0], {"model": "acme/unlisted", "messages": [{"role": "user", "content": THIRTY_MB}]}),
    "objectiveai": (FACES[3], {**FACES[3].valid(), "messages": [{"role": "user", "content": THIRTY_MB}]}),
}


@pytest.mark.parametrize("case", list(PROMPTS))
def test_a_30_mb_prompt_where_no_context_window_stops_the_count(make_server: MakeServer, wire_to: WireTo, case: str):
    """Issue 31, item 6: counting a 30 MB prompt took 2 to 4.5 s on the loop; past 1 MiB of text
    it is estimated from samples. What remains is the body's own reading, decoding, serialising
    and hashing (linear, some hundreds of milliseconds together), hence the big body's margin.
    ObjectiveAI's took about a second more, for the seeds of its values and votes, each of which
    made and hashed the conversation's 30 MB text again: it is made once now, but the face still
    writes the conversation twice over (the text its seeds hash, and the JSON its ids hash, which
    must stay byte for byte what they were), about a second on a quiet machine and 3.4 s of a
    health probe's wait once in a full parallel run: its margin is twice the big body's.)"""
    face, body = PROMPTS[case]
    server = make_server(DEFAULT)
    wire = wire_to(server)
    route = "/api/anthropic/v1/messages/count_tokens" if case == "count_tokens" else face.route
    raw = orjson.dumps(body)

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.post_json(route, raw, list(face.headers))
        return status, answer

    timed = timed_with_probes(server, send, warm=lambda: wire_to(server).ask(face, face.valid()))
    assert_no_stall(timed, probe_within=BIG_BODY_PROBE_S * (2 if case == "objectiveai" else 1))
    if case == "count_tokens":
        assert timed.status == 200
        counted = orjson.loads(timed.body)["input_tokens"]
        exact = len(tokens.pieces(UNIT * 2)) - len(tokens.pieces(UNIT))  # a unit's tokens amid others
        assert abs(counted - exact * len(THIRTY_MB) // len(UNIT)) < counted * 0.03
