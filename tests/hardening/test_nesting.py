"""Issue 17, defect 1: JSON nested past the limit is refused at parse time with a 400 in the
face's envelope naming where, and no stored entry can break the journal API or the journal file."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, zenmux_error
from zenmux_emulator.foundation.nesting import MAX_DEPTH, depth_of

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"


def nested(levels: int) -> object:
    """`levels` arrays one inside the other: `[[…]]`."""
    value: object = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_body_nested_past_the_limit_is_a_400_naming_where(make_server: MakeServer, wire_to: WireTo, face: Face):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, {**face.valid(), "x": nested(300)})
    assert status == 400, body
    message = face.envelope(status, body)["message"]
    assert f"more than {MAX_DEPTH} levels" in message and "x[0][0]" in message, message


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_deep_tool_parameters_are_a_400(make_server: MakeServer, wire_to: WireTo, face: Face):
    wire = wire_to(make_server(RULES))
    deep: dict[str, object] = {"type": "object"}
    for _ in range(MAX_DEPTH):
        deep = {"type": "object", "properties": {"a": deep}}
    status, _, body = wire.ask(face, face.with_tool(deep))
    assert status == 400, body
    assert "properties" in face.envelope(status, body)["message"]


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_nesting_up_to_the_limit_is_accepted(make_server: MakeServer, wire_to: WireTo, face: Face):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, {**face.valid(), "x": nested(MAX_DEPTH - 1)})
    assert status == 200, body


def test_the_control_api_refuses_deep_bodies(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.post_json("/_emulator/clock", {"freeze_at": nested(300)})
    error = zenmux_error(400, orjson.loads(body))
    assert status == 400 and "freeze_at[0]" in error["message"]
    status, _, body = wire.post_json("/_emulator/scenarios?name=deep", {"rules": nested(300)})
    error = zenmux_error(400, orjson.loads(body))  # the scenario loader's own limit, located
    assert (status, error["type"]) == (400, "invalid_scenario") and "nesting deeper than" in error["message"]
    status, _, body = wire.post_json("/_emulator/sessions/reset", {"session": nested(300)})
    assert status == 400 and "session[0]" in zenmux_error(400, orjson.loads(body))["message"]


def test_a_deep_scripted_body_never_breaks_the_journal_or_its_file(
    make_server: MakeServer, wire_to: WireTo, tmp_path: Path
):
    """A raw reply's body is the scenario author's: stored as sent, shown within the serialiser's limit."""
    deep = json.dumps(nested(300))
    journal = tmp_path / "journal.jsonl"
    server = make_server(f"rules:\n  - name: deep\n    reply: {{raw: {{body: '{deep}'}}}}\n", journal_file=journal)
    wire = wire_to(server)
    assert wire.ask(FACES[0], FACES[0].valid())[0] == 200
    assert wire.ask(FACES[0], FACES[0].valid())[0] == 200
    status, _, body = wire.send("GET", "/_emulator/journal")
    assert status == 200, body
    entries = orjson.loads(body)["entries"]
    assert [e["rule"] for e in entries] == ["deep", "deep"]
    assert "nested" in orjson.dumps(entries[0]["response"]).decode()
    server.stop()
    lines = journal.read_bytes().splitlines()
    assert [orjson.loads(line)["rule"] for line in lines] == ["deep", "deep"]


def test_a_header_that_is_not_utf8_never_breaks_the_journal_or_its_file(
    make_server: MakeServer, wire_to: WireTo, tmp_path: Path
):
    journal = tmp_path / "journal.jsonl"
    server = make_server(RULES, journal_file=journal)
    wire = wire_to(server)
    status, _, _ = wire.ask(FACES[0], FACES[0].valid(), [("X-Trace", b"caf\xe9 \xff")])
    assert status == 200
    status, _, body = wire.send("GET", "/_emulator/journal")
    assert status == 200, body
    [entry] = orjson.loads(body)["entries"]
    assert entry["headers"]["X-Trace"].startswith("caf")
    server.stop()
    [line] = journal.read_bytes().splitlines()
    assert orjson.loads(line)["headers"]["X-Trace"] == entry["headers"]["X-Trace"]


TRICKY_TEXT = st.text(alphabet='[]{}"\\ az\u00e9', max_size=8)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY_TEXT, inner, max_size=4),
    max_leaves=40,
)


def levels(value: object) -> int:
    """How deep a value nests, counted the plain way (a container is one level more than its deepest item)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    if items is None:
        return 0
    return 1 + max((levels(item) for item in items), default=0)


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(JSON_VALUES, st.booleans())
def test_the_depth_read_from_the_bytes_is_the_depth_of_the_value(value: object, indent: bool):
    """Strings full of brackets, quotes and backslashes never count: the bytes say what the value does."""
    raw = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    assert depth_of(raw) == levels(value)
    assert depth_of(json.dumps(value, ensure_ascii=False).encode()) == levels(value)
