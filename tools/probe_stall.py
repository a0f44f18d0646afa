"""Probe: how long one large request stalls every other client of the emulator.

Starts `zenmux-emulator serve` (the venv's console script) on a free loopback port, keeps one
client sending small chat requests back to back, sends one large prompt (30 MB by default, to a
model whose context window it exceeds, so the answer is 413) and reports the large request's
status and time and the slowest small request while it was in flight.

    .venv/bin/python tools/probe_stall.py [--megabytes 30] [--model anthropic/claude-sonnet-4.5]

The figures are recorded in docs/performance.md ("Work that grows with input"). It measures, it
asserts nothing: the tests check behaviour, never timings.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+)/api/v1")
SMALL = {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello"}]}


def start(scenarios: Path) -> tuple[subprocess.Popen[str], str]:
    script = Path(sys.executable).with_name("zenmux-emulator")
    process = subprocess.Popen(
        [str(script), "serve", "--port", "0", "--scenarios", str(scenarios), "--no-watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    found = LISTENING.search(process.stdout.readline())
    if found is None:
        process.kill()
        raise SystemExit("the emulator did not start")
    return process, found.group(1)


async def probe(base: str, megabytes: int, model: str) -> None:
    url = f"{base}/api/v1/chat/completions"
    headers = {"Authorization": "Bearer sk-probe"}
    big = {"model": model, "messages": [{"role": "user", "content": "word " * (megabytes * 1024 * 1024 // 5)}]}
    async with aiohttp.ClientSession(headers=headers) as session:
        for _ in range(50):  # warm up: faker, caches
            async with session.post(url, json=SMALL) as answer:
                await answer.read()
        done = asyncio.Event()
        latencies: list[float] = []

        async def small_loop() -> None:
            while not done.is_set():
                began = time.perf_counter()
                async with session.post(url, json=SMALL) as answer:
                    await answer.read()
                latencies.append(time.perf_counter() - began)

        loop_task = asyncio.create_task(small_loop())
        await asyncio.sleep(0.2)
        baseline = max(latencies) if latencies else 0.0
        latencies.clear()
        body = aiohttp.JsonPayload(big)
        began = time.perf_counter()
        async with session.post(url, data=body) as answer:
            await answer.read()
            status = answer.status
        took = time.perf_counter() - began
        await asyncio.sleep(0.1)
        done.set()
        await loop_task
    print(f"large request: {megabytes} MB to {model}: {status} in {took:.3f} s")
    print(
        f"slowest small request while it ran: {max(latencies):.3f} s ({len(latencies)} requests; "
        f"before it: {baseline:.3f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=30)
    parser.add_argument("--model", default="anthropic/claude-sonnet-4.5")
    args = parser.parse_args()
    scenarios = Path(__file__).resolve().parent.parent / "scenarios"
    process, base = start(scenarios)
    try:
        asyncio.run(probe(base, args.megabytes, args.model))
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
