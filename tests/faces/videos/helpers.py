"""The video jobs' test scenario, raw HTTP to the native API and the clock, and what PyAV reads of an MP4."""

from __future__ import annotations

import io
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import av
import orjson

from tests.conftest import API_KEY
from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

MODEL = "bytedance/doubao-seedance-2.0"
VEO = "google/veo-3.1-generate-001"
SCENARIO = """\
rules:
  - name: refused-video
    match: {api: videos, last_user: {contains: forbidden}}
    reply: {video: {fails: "The prompt was flagged by the content filter"}}
  - name: slow-video
    match: {api: videos, last_user: {contains: slow}}
    reply: {video: {after_s: 120}}
  - name: busy
    match: {api: videos, last_user: {contains: too busy}}
    reply: {error: {status: 429, message: "Slow down"}}
"""


def send(server: EmulatorServer, path: str, body: object | None = None, session: str = "videos") -> Raw:
    headers = {"Authorization": f"Bearer {API_KEY}", SESSION_HEADER: session, "Content-Type": "application/json"}
    data = None if body is None else orjson.dumps(body)
    return http(server.origin + path, data, method="GET" if body is None else "POST", headers=headers)


def advance(server: EmulatorServer, seconds: float) -> None:
    answer = send(server, "/_emulator/clock", {"advance": seconds})
    assert answer.status == 200, answer.text


def download(url: str) -> tuple[int, str, bytes]:
    """GET `url` as a browser or a downloader would, without a key: status, content type, bytes."""
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


def submit(server: EmulatorServer, text: str, **more: Any) -> Raw:
    return send(server, "/api/v1/videos", {"model": MODEL, "content": [{"type": "text", "text": text}], **more})


@dataclass(frozen=True)
class Opened:
    width: int
    height: int
    seconds: float
    frames: int
    codec: str


def opened(data: bytes) -> Opened:
    """What PyAV reads of an MP4 (decoding every frame, so a broken stream fails here)."""
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        assert container.duration is not None
        return Opened(stream.width, stream.height, container.duration / 1_000_000, frames, stream.codec_context.name)
