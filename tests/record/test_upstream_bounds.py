"""Issue 31, item 8: the recorder gives up on its upstream. A hung upstream no longer keeps one
connection per abandoned request (the call is cancelled when its client leaves, and a silent
upstream times out); an answer past the size bound stops there, a gzip bomb too (a 502, not
+117 MB); and garbage (a stream of which no event parses, a 200 that is no completion) is a
failed call, passed back but not recorded without --record-errors."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.record.helpers import recorded, recorder
from zenmux_emulator.record.store import FILENAME

LOOKS = 100
"""How many times (a tenth of a second apart) the test looks for the connections to close."""
SLOW_END_EVENTS = (
    b"".join(
        b"data: " + json.dumps(chunk).encode() + b"\n\n"
        for chunk in (
            {
                "id": "gen-slow-end",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "openai/gpt-5.4-mini",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "all said"}, "finish_reason": None}],
            },
            {
                "id": "gen-slow-end",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "openai/gpt-5.4-mini",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
            },
        )
    )
    + b"data: [DONE]\n\n"
)
"""A chat stream's events, all of them, which the "slow end" upstream sends before it waits."""


class Upstream:
    """A misbehaving upstream on a free port, in its own loop: hangs, floods, bombs, or talks garbage.
    `active` counts the calls it is still answering (aiohttp cancels one when its connection closes)."""

    def __init__(self) -> None:
        self.active = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.bomb = gzip.compress(b"0" * (100 * 1024 * 1024), compresslevel=9)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        said = json.dumps(await request.json())
        self.active += 1
        try:
            if "hang" in said:
                await asyncio.sleep(3600)
            if "flood" in said:  # 100 MB of JSON, a megabyte at a time
                response = web.StreamResponse(headers={"Content-Type": "application/json"})
                await response.prepare(request)
                chunk = b" " * (1024 * 1024)
                for _ in range(100):
                    await response.write(chunk)
                await response.write_eof()
                return response
            if "bomb" in said:
                return web.Response(
                    body=self.bomb, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}
                )
            if "slow end" in said:  # every event at once, the end of the body 0.3 s later
                response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
                await response.prepare(request)
                await response.write(SLOW_END_EVENTS)
                await asyncio.sleep(0.3)
                await response.write_eof()
                return response
            if "garbage stream" in said:
                return web.Response(
                    body=b"data: not json\n\ndata: {broken\n\n", headers={"Content-Type": "text/event-stream"}
                )
            return web.json_response({"hello": "not a completion"})
        finally:
            self.active -= 1

    def start(self) -> Upstream:
        self.thread.start()

        async def serve() -> int:
            app = web.Application()
            app.router.add_post("/api/v1/chat/completions", self.answer)
            self.runner = web.AppRunner(app, handler_cancellation=True)
            await self.runner.setup()
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            await site.start()
            return int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

        self.port = asyncio.run_coroutine_threadsafe(serve(), self.loop).result(30)
        return self

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()


@pytest.fixture
def bad_upstream() -> Iterator[Upstream]:
    server = Upstream().start()
    try:
        yield server
    finally:
        server.stop()


def chat(port: int, text: str, timeout: float = 60) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        body = json.dumps({"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": text}]})
        conn.request(
            "POST",
            "/api/v1/chat/completions",
            body,
            {"Content-Type": "application/json", "Authorization": "Bearer sk-record"},
        )
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_abandoned_calls_to_a_hung_upstream_give_their_connections_back(bad_upstream: Upstream, tmp_path: Path):
    with recorder(bad_upstream, tmp_path / "out") as server:  # type: ignore[arg-type]
        for i in range(5):
            with pytest.raises((TimeoutError, socket.timeout)):
                chat(server.port, f"hang {i}", timeout=0.5)
        for _ in range(LOOKS):
            if bad_upstream.active == 0:
                break
            time.sleep(0.1)
        assert bad_upstream.active == 0, f"{bad_upstream.active} upstream calls still open"


@pytest.mark.parametrize("text", ["flood me", "bomb me"])
def test_an_answer_past_the_size_bound_is_a_502(bad_upstream: Upstream, tmp_path: Path, text: str):
    with recorder(bad_upstream, tmp_path / "out") as server:  # type: ignore[arg-type]
        status, body = chat(server.port, text)
    assert status == 502, body[:300]
    assert "larger than" in json.loads(body)["error"]["message"]
    assert not (tmp_path / "out" / FILENAME).exists()


def test_garbage_is_passed_back_but_not_recorded(bad_upstream: Upstream, tmp_path: Path):
    with recorder(bad_upstream, tmp_path / "out") as server:  # type: ignore[arg-type]
        answers = [chat(server.port, "garbage stream please"), chat(server.port, "a json that is no completion")]
        journal = json.loads(chat_journal(server.port))
    assert [status for status, _ in answers] == [200, 200]
    assert not (tmp_path / "out" / FILENAME).exists() or not recorded(tmp_path / "out").get("rules")
    warned = [w for entry in journal["entries"] for w in entry.get("warnings") or []]
    assert sum("the upstream call failed; not recorded" in w for w in warned) == 2, warned


def chat_journal(port: int) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/_emulator/journal")
        return conn.getresponse().read()
    finally:
        conn.close()


def test_a_stream_read_to_its_last_event_is_recorded_when_the_client_hangs_up_before_its_end(
    bad_upstream: Upstream, tmp_path: Path
) -> None:
    """The SDKs close the connection once they read `[DONE]`; the upstream's end of the body comes
    later. The recorder waits for it (within its grace) instead of cancelling the call."""
    out = tmp_path / "out"
    with recorder(bad_upstream, out) as server:  # type: ignore[arg-type]
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        body = json.dumps(
            {"model": "openai/gpt-5.4-mini", "stream": True, "messages": [{"role": "user", "content": "slow end"}]}
        )
        conn.request("POST", "/api/v1/chat/completions", body, {"Authorization": "Bearer sk-record"})
        response = conn.getresponse()
        read = b""
        while b"[DONE]" not in read:
            read += response.read1()
        conn.close()  # before the end of the body, as an SDK does
        for _ in range(LOOKS):
            if (out / FILENAME).exists():
                break
            time.sleep(0.1)
    assert response.status == 200 and b"all said" in read
    rules = recorded(out)["rules"]
    assert [(rule["match"]["last_user"], rule["reply"]["content"]) for rule in rules] == [
        ({"equals": "slow end"}, "all said")
    ]
