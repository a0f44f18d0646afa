"""Issue 17's probe of memory under aborted streams: RSS of a real `zenmux-emulator serve` process
after clients that hang up mid-stream.

    python bench/probe_aborted_streams.py [--streams 10000] [--warmup 2000] [--concurrency 50]

The server runs with its default journal (1,000 entries, 32 MiB). `--warmup` aborted streams fill
the journal first, so what follows measures growth beyond the bounded journal: the figure issue 17
asks to keep under 5 MB for 10,000 streams. Each client sends a streamed chat request, reads the
first bytes of the stream and closes the connection; the server finds out at its next write.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = "word " * 100
RULES = f"""\
rules:
  - name: slow
    reply: {{content: "{WORDS}", stream: {{chunk_tokens: 1, chunk_ms: 20}}}}
"""
LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)/api/v1")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def abort_one(port: int, request: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    head = await reader.read(1024)
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(f"unexpected answer: {head[:200]!r}")
    writer.close()
    await writer.wait_closed()


async def abort_many(port: int, count: int, concurrency: int) -> None:
    body = json.dumps(
        {"model": "openai/gpt-4o", "stream": True, "messages": [{"role": "user", "content": "tell me a story"}]}
    ).encode()
    request = (
        b"POST /api/v1/chat/completions HTTP/1.1\r\nHost: probe\r\nAuthorization: Bearer sk-probe\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    ) + body
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            await abort_one(port, request)

    await asyncio.gather(*(one() for _ in range(count)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="probe-"))
    (folder / "rules.yaml").write_text(RULES, encoding="utf-8")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zenmux_emulator",
            "serve",
            "--port",
            "0",
            "--no-watch",
            "--scenarios",
            str(folder),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = LISTENING.search(line)
        if found is None:
            raise RuntimeError(f"the server did not start: {line!r}")
        port = int(found.group(1))
        asyncio.run(abort_many(port, args.warmup, args.concurrency))
        time.sleep(1.0)  # the last streams end at their next write
        before = rss_kib(server.pid)
        started = time.perf_counter()
        asyncio.run(abort_many(port, args.streams, args.concurrency))
        took = time.perf_counter() - started
        time.sleep(1.0)
        after = rss_kib(server.pid)
        print(f"aborted streams: {args.warmup} to fill the journal, then {args.streams} in {took:.1f}s")
        print(
            f"RSS after the warm-up: {before / 1024:.1f} MiB; after {args.streams} more: {after / 1024:.1f} MiB; "
            f"growth {(after - before) / 1024:+.2f} MiB (issue 17's bound: 5 MB)"
        )
        return 0 if (after - before) * 1024 <= 5_000_000 else 1
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
