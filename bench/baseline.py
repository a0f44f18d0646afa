"""A bare aiohttp server answering a fixed chat.completion and a fixed 50-chunk SSE stream (250
chunks 20 ms apart for the paced prompt).

It uses the emulator's JSON library (orjson) and event loop (asyncio's default), so the
ratio emulator/baseline measures the emulator's own work, not aiohttp's.
Run: python bench/baseline.py --port 0  (prints the same "listening on" line as the emulator).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
import uuid
from collections.abc import Awaitable, Callable

import orjson
from aiohttp import web
from gen_scenarios import PACED_CHUNK_MS, PACED_PROMPT, PACED_WORDS, WORDS

MODEL = "openai/gpt-5"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _completion(content: str) -> dict[str, object]:
    return {
        "id": uuid.uuid4().hex,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None, "annotations": []},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 8, "completion_tokens": 50, "total_tokens": 58},
    }


def _chunk(cid: str, created: int, delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


async def chat(request: web.Request) -> web.StreamResponse:
    """Parse the body with orjson, then answer plain JSON or a role + 50 (paced: 250) content + finish chunk stream."""
    body = orjson.loads(await request.read())
    content = " ".join(WORDS)
    if not body.get("stream"):
        return web.Response(body=orjson.dumps(_completion(content)), content_type="application/json")
    paced = body["messages"][-1].get("content") == PACED_PROMPT
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await resp.prepare(request)
    cid, created = uuid.uuid4().hex, int(time.time())
    await resp.write(_chunk(cid, created, {"role": "assistant", "content": "", "refusal": None}))
    for i, word in enumerate(PACED_WORDS if paced else WORDS):
        if paced and i:
            await asyncio.sleep(PACED_CHUNK_MS / 1000)
        await resp.write(_chunk(cid, created, {"content": word if i == 0 else " " + word}))
    await resp.write(_chunk(cid, created, {}, "stop"))
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp


async def serve(host: str, port: int, handler: Handler = chat, name: str = "baseline") -> None:
    """Serve `handler` at the chat completions path until SIGTERM/SIGINT (bench/floor.py reuses it)."""
    app = web.Application()
    app.router.add_post("/api/v1/chat/completions", handler)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    print(f"{name} listening on http://{host}:{runner.addresses[0][1]}/api/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
