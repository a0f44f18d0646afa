"""Issue 17, defect 3: header bytes that are not UTF-8, bodies that say they are compressed and are
not (or inflate past the body limit), and a clock out of range get clear 4xx answers (or a refusal
at start), never a 500."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib

import orjson
import pytest
from pydantic import ValidationError

from tests.conftest import SHIPPED, MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, zenmux_error
from zenmux_emulator.settings import LATEST_CLOCK, Settings

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
NOT_UTF8 = b"caf\xe9\xff"


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("Authorization", b"Bearer " + NOT_UTF8),
        ("x-api-key", NOT_UTF8),
        ("X-Emulator-Session", NOT_UTF8),
    ],
    ids=["authorization", "x-api-key", "session"],
)
def test_a_credential_or_session_header_that_is_not_utf8_is_a_400_naming_it(
    make_server: MakeServer, wire_to: WireTo, face: Face, header: str, value: bytes
):
    wire = wire_to(make_server(RULES))
    headers: list[tuple[str, str | bytes]] = [(header, value)]
    if header == "X-Emulator-Session":
        headers.append(("Authorization", "Bearer sk-good"))
    status, _, body = wire.ask(face, face.valid(), headers)
    assert status == 400, body
    assert header in face.envelope(status, body)["message"]


def test_an_admin_token_that_is_not_utf8_is_a_400_naming_the_header(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES, admin_token="s3cret"))
    status, _, body = wire.send("GET", "/_emulator/health", headers=[("X-Emulator-Admin-Token", NOT_UTF8)])
    assert status == 400, body
    assert "X-Emulator-Admin-Token" in zenmux_error(400, orjson.loads(body))["message"]
    assert wire.send("GET", "/_emulator/health", headers=[("X-Emulator-Admin-Token", "s3cret")])[0] == 200


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_body_that_says_it_is_compressed_and_is_not_is_a_400(
    make_server: MakeServer, wire_to: WireTo, face: Face, encoding: str
):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.ask(face, face.valid(), [("Content-Encoding", encoding)])
    assert status == 400, body
    assert encoding in face.envelope(status, body)["message"]


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_compressed_body_is_read(make_server: MakeServer, wire_to: WireTo, face: Face):
    wire = wire_to(make_server(RULES))
    raw = json.dumps(face.valid()).encode()
    assert wire.ask(face, gzip.compress(raw), [("Content-Encoding", "gzip")])[0] == 200
    assert wire.ask(face, zlib.compress(raw), [("Content-Encoding", "deflate")])[0] == 200


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_body_that_inflates_past_the_limit_is_a_413(make_server: MakeServer, wire_to: WireTo, face: Face):
    """16 MiB of spaces in 16 KiB: inflated only as far as the body limit."""
    wire = wire_to(make_server(RULES, max_body_bytes=1024 * 1024))
    bomb = gzip.compress(json.dumps(face.valid()).encode()[:-1] + b" " * (16 << 20) + b"}")
    status, _, body = wire.ask(face, bomb, [("Content-Encoding", "gzip")])
    assert status == 413, body
    assert "1048576" in face.envelope(status, body)["message"]


def test_the_control_api_refuses_a_body_that_is_not_compressed(make_server: MakeServer, wire_to: WireTo):
    wire = wire_to(make_server(RULES))
    status, _, body = wire.post_json("/_emulator/clock", {"advance": 1}, [("Content-Encoding", "gzip")])
    assert status == 400 and "gzip" in zenmux_error(400, orjson.loads(body))["message"]
    status, _, body = wire.send(
        "POST",
        "/_emulator/scenarios?name=x",
        RULES.encode(),
        [("Content-Type", "application/yaml"), ("Content-Encoding", "deflate")],
    )
    assert status == 400 and "deflate" in zenmux_error(400, orjson.loads(body))["message"]


@pytest.mark.parametrize("clock", [-1, "-86400", LATEST_CLOCK + 1, "1969-12-31T23:59:59Z"])
def test_a_clock_out_of_range_is_refused_by_the_settings(clock: object):
    with pytest.raises(ValidationError, match="clock"):
        Settings(clock=clock)
    assert Settings(clock=LATEST_CLOCK).clock == LATEST_CLOCK
    assert Settings(clock=0).clock == 0


def test_serve_refuses_a_clock_out_of_range_at_start():
    result = subprocess.run(
        [sys.executable, "-m", "zenmux_emulator", "serve", "--scenarios", str(SHIPPED), "--port", "0", "--clock", "-5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "clock" in result.stderr and "9999" in result.stderr
    assert "listening" not in result.stdout


@pytest.mark.parametrize(
    "body",
    [
        {"freeze_at": -1},
        {"freeze_at": LATEST_CLOCK + 1},
        {"freeze_at": "10000-01-01"},
        {"advance": 1e300},
        {"freeze_at": 1e308},
    ],
)
def test_the_clock_setter_refuses_a_time_out_of_range(make_server: MakeServer, wire_to: WireTo, body: object):
    wire = wire_to(make_server(RULES))
    status, _, answer = wire.post_json("/_emulator/clock", body)
    assert status == 400, answer
    assert "9999" in zenmux_error(400, orjson.loads(answer))["message"]
    assert wire.ask(FACES[0], FACES[0].valid())[0] == 200


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_coding_the_emulator_does_not_inflate_is_a_415_and_a_cut_stream_a_400(
    make_server: MakeServer, wire_to: WireTo, face: Face
):
    wire = wire_to(make_server(RULES))
    for coding in ("br", "zstd", "gzip, br", "zzz"):
        status, _, body = wire.ask(face, face.valid(), [("Content-Encoding", coding)])
        assert status == 415 and coding in face.envelope(status, body)["message"], body
    status, _, body = wire.ask(face, b"\x00\x01", [("Content-Encoding", "deflate")])  # a deflate block never ended
    assert status == 400 and "deflate" in face.envelope(status, body)["message"], body
    status, _, body = wire.ask(face, gzip.compress(b'{"model": "x"')[:-8], [("Content-Encoding", "gzip")])
    assert status == 400 and "gzip" in face.envelope(status, body)["message"], body
