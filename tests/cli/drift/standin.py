"""A stand-in ZenMux for the drift tests: an aiohttp app on a free loopback port, in its own loop,
that answers every request as a second emulator does, changed in known ways.

The changes (each on one face's probe, so a test knows where drift must be named):
- chat plain: a field added (`$.zenmux_route`), a field missing (`$.usage.total_tokens`), a
  type changed (`$.created` a string), a header gone (`x-generation-id`);
- anthropic stream: `ping` moved before `content_block_start` (an event reordered);
- chat unknown model: the error type renamed (`model_not_found`).
It checks each request carries the key it was given and, to prove the key is masked, echoes it
in the text of every refusal."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import aiohttp
from aiohttp import web

CHANGES = [
    {"face": "chat", "probe": "plain", "kind": "added", "path": "$.zenmux_route"},
    {"face": "chat", "probe": "plain", "kind": "missing", "path": "$.usage.total_tokens"},
    {"face": "chat", "probe": "plain", "kind": "retyped", "path": "$.created"},
    {"face": "chat", "probe": "plain", "kind": "missing", "path": "header:x-generation-id"},
    {"face": "anthropic", "probe": "stream", "kind": "stream-order", "path": "events"},
    {"face": "chat", "probe": "unknown-model", "kind": "error", "path": "$.error.type"},
]
"""Every difference the stand-in has, as drift names it."""
HOP = {"content-length", "transfer-encoding", "date", "server", "content-encoding", "connection"}


class StandIn:
    """`StandIn(emulator_origin, key).start()`; `.origin`; `.stop()`. `seen_keys` counts the
    requests that came with the right key, `wrong_keys` those that did not."""

    def __init__(self, behind: str, key: str, *, changed: bool = True) -> None:
        self.behind = behind
        self.key = key
        self.changed = changed
        self.seen_keys = 0
        self.wrong_keys = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.session: aiohttp.ClientSession | None = None
        self.port = 0

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _keyed(self, request: web.Request) -> bool:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ")
        ok = given == self.key
        if ok:
            self.seen_keys += 1
        else:
            self.wrong_keys += 1
        return ok

    async def answer(self, request: web.Request) -> web.StreamResponse:
        if not self._keyed(request):
            return web.json_response({"error": {"type": "authentication_error", "message": "bad key"}}, status=401)
        body = await request.read()
        assert self.session is not None
        headers = {"Authorization": "Bearer sk-behind", "Content-Type": "application/json"}
        for name in ("anthropic-version",):
            if name in request.headers:
                headers[name] = request.headers[name]
        async with self.session.post(self.behind + request.path, data=body, headers=headers) as upstream:
            raw = await upstream.read()
            passed = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP}
            status = upstream.status
        sent = json.loads(body)
        if self.changed:
            raw, passed = self._change(request.path, sent, status, raw, passed)
        if status >= 400:  # the key in a refusal's text: drift must mask it
            raw = raw.replace(b'"message":"', f'"message":"(key {self.key}) '.encode(), 1)
        return web.Response(status=status, body=raw, headers=passed)

    def _change(
        self, path: str, sent: dict[str, Any], status: int, raw: bytes, headers: dict[str, str]
    ) -> tuple[bytes, dict[str, str]]:
        prompt = json.dumps(sent.get("messages"))
        if (
            path == "/api/v1/chat/completions"
            and status == 200
            and not sent.get("stream")
            and "Say hello" in prompt
            and "tools" not in sent
            and "response_format" not in sent
            and "reasoning" not in sent
        ):
            document = json.loads(raw)
            document["zenmux_route"] = {"provider": "openai"}
            del document["usage"]["total_tokens"]
            document["created"] = str(document["created"])
            headers = {k: v for k, v in headers.items() if k.lower() != "x-generation-id"}
            return json.dumps(document).encode(), headers
        if path == "/api/v1/chat/completions" and status == 400 and "no-such-model" in str(sent.get("model")):
            document = json.loads(raw)
            document["error"]["type"] = "model_not_found"
            return json.dumps(document).encode(), headers
        if path == "/api/anthropic/v1/messages" and sent.get("stream") and "thinking" not in sent:
            blocks = raw.split(b"\n\n")
            starts = [i for i, b in enumerate(blocks) if b.startswith(b"event: content_block_start")]
            pings = [i for i, b in enumerate(blocks) if b.startswith(b"event: ping")]
            if starts and pings and starts[0] < pings[0]:
                blocks.insert(starts[0], blocks.pop(pings[0]))
            return b"\n\n".join(blocks), headers
        return raw, headers

    def start(self) -> StandIn:
        self.thread.start()

        async def serve() -> int:
            self.session = aiohttp.ClientSession()
            app = web.Application()
            app.router.add_route("*", "/{tail:.*}", self.answer)
            self.runner = web.AppRunner(app)
            await self.runner.setup()
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            await site.start()
            return int(self.runner.addresses[0][1])

        self.port = asyncio.run_coroutine_threadsafe(serve(), self.loop).result(30)
        return self

    def stop(self) -> None:
        async def close() -> None:
            if self.session is not None:
                await self.session.close()
            if self.runner is not None:
                await self.runner.cleanup()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()
