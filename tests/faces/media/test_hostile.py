"""Bad requests to the media faces get a 4xx in ZenMux's envelope, never a 5xx or a traceback:
generated JSON bodies (valid ones with a field replaced by any JSON value), and hostile multipart
forms (no boundary, no end, parts without names, files where text belongs, a wav with no frame rate)."""

from __future__ import annotations

import json
import struct
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.clients import API_KEY
from tests.support.strategies import JSON_VALUES
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

VALID: dict[str, dict[str, Any]] = {
    "/images/generations": {"model": "gpt-image-2", "prompt": "a kite", "size": "1024x1024", "n": 1},
    "/images/edits": {
        "model": "gpt-image-2",
        "prompt": "a kite",
        "images": [{"image_url": "data:image/png;base64,AAAA"}],
    },
    "/audio/speech": {"model": "openai/tts-1", "input": "hi", "voice": "alloy", "response_format": "wav"},
    "/audio/transcriptions": {"model": "openai/whisper-1", "input_audio": {"data": "AAAA", "format": "wav"}},
}


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(Settings(port=0, scenarios=[])) as started:
        yield started


def post(server: EmulatorServer, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        server.base_url + path,
        data=body,
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": content_type},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as failed:
        with failed:
            return failed.code, failed.read()


def judged(status: int, body: bytes) -> None:
    assert status < 500, body
    if status >= 400:
        error = json.loads(body)["error"]
        assert isinstance(error["message"], str) and error["message"] and "Traceback" not in error["message"]


@settings(
    max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(sorted(VALID)), st.data())
def test_a_field_replaced_by_any_json_is_never_a_5xx(server: EmulatorServer, path: str, data: st.DataObject) -> None:
    body = dict(VALID[path])
    field = data.draw(st.sampled_from([*body, "stream", "response_format", "voice", "size", "mask"]))
    body[field] = data.draw(JSON_VALUES)
    judged(*post(server, path, json.dumps(body).encode(), "application/json"))


def form(*parts: bytes, boundary: bytes = b"XyZ") -> bytes:
    return b"".join(b"--" + boundary + b"\r\n" + part + b"\r\n" for part in parts) + b"--" + boundary + b"--\r\n"


def field(name: str, value: bytes, filename: str | None = None) -> bytes:
    head = f'Content-Disposition: form-data; name="{name}"'
    if filename is not None:
        head += f'; filename="{filename}"\r\nContent-Type: application/octet-stream'
    return head.encode() + b"\r\n\r\n" + value


NO_RATE_WAV = b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 0, 0, 2, 16)
NO_RATE_WAV += b"data" + struct.pack("<I", 0)
FORMS = [
    ("/audio/transcriptions", "multipart/form-data", form(field("model", b"openai/whisper-1"))),
    ("/audio/transcriptions", "multipart/form-data; boundary=XyZ", b"--XyZ\r\nno end"),
    ("/audio/transcriptions", "multipart/form-data; boundary=XyZ", form(b"Content-Type: text/plain\r\n\r\nx")),
    ("/audio/transcriptions", "multipart/form-data; boundary=XyZ", form(b"no headers at all")),
    ("/audio/transcriptions", "multipart/form-data; boundary=XyZ", form(field("file", b"text, not a file"))),
    (
        "/audio/transcriptions",
        "multipart/form-data; boundary=XyZ",
        form(field("model", b"openai/whisper-1"), field("file", NO_RATE_WAV, "a.wav")),
    ),
    (
        "/audio/transcriptions",
        "multipart/form-data; boundary=XyZ",
        form(field("model", b"openai/whisper-1"), field("file", b"", "a.wav")),
    ),
    (
        "/audio/transcriptions",
        "multipart/form-data; boundary=XyZ",
        form(field("model", b"openai/whisper-1"), field("file", b"RIFF\x00", "a.wav"), field("file", b"x", "b.wav")),
    ),
    ("/images/edits", "multipart/form-data; boundary=XyZ", form(field("prompt", b"x"), field("image", b"text"))),
    (
        "/images/edits",
        "multipart/form-data; boundary=XyZ",
        form(field("prompt", b"x"), field("image[]", b"\x89PNG\r\n\x1a\n", "a.png"), field("n", b"lots")),
    ),
    ("/images/generations", "multipart/form-data; boundary=XyZ", form(field("prompt", b"\xff\xfe"))),
]


@pytest.mark.parametrize(("path", "content_type", "body"), FORMS)
def test_a_hostile_form_is_a_4xx_in_the_envelope(
    server: EmulatorServer, path: str, content_type: str, body: bytes
) -> None:
    status, answer = post(server, path, body, content_type)
    judged(status, answer)


def test_a_wav_without_a_frame_rate_is_timed_by_its_size(server: EmulatorServer) -> None:
    body = form(field("model", b"openai/whisper-1"), field("file", NO_RATE_WAV, "a.wav"))
    status, answer = post(server, "/audio/transcriptions", body, "multipart/form-data; boundary=XyZ")
    assert status == 200 and json.loads(answer)["usage"]["seconds"] > 0
