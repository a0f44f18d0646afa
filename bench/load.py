"""Closed-loop HTTP load generator: N workers on one keep-alive connection pool, fixed duration.

Run as its own process (pinned to its own core by `--cpu`) so that it is measured apart from the
server. Prints one JSON object with the counts, rates and latency/gap percentiles on stdout.
Only requests that *finish* inside the measurement window are counted (unbiased in steady state).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import aiohttp
import orjson


@dataclass
class Stats:
    """What the workers collected inside the measurement window."""

    requests: int = 0
    failures: int = 0
    chunks: int = 0
    latencies: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile, `q` in [0, 100]; None when there are no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


class Window:
    """The measurement window [start, end] on the perf_counter clock."""

    def __init__(self, warmup: float, duration: float) -> None:
        now = time.perf_counter()
        self.start = now + warmup
        self.end = self.start + duration

    def counts(self, t: float) -> bool:
        return self.start <= t <= self.end


async def one_plain(session: aiohttp.ClientSession, url: str, body: bytes) -> tuple[bool, int, list[float]]:
    async with session.post(url, data=body) as resp:
        data = await resp.read()
        return resp.status == 200 and data.startswith(b"{") and b'"chat.completion"' in data, 0, []


async def one_stream(session: aiohttp.ClientSession, url: str, body: bytes, timed: bool) -> tuple[bool, int, list[float]]:
    """Read an SSE stream; count events (blank-line terminated); optionally timestamp each event."""
    events = 0
    stamps: list[float] = []
    tail = b""
    async with session.post(url, data=body) as resp:
        if resp.status != 200:
            await resp.read()
            return False, 0, []
        async for piece in resp.content.iter_any():
            joined = tail[-1:] + piece
            n = joined.count(b"\n\n")
            if n:
                events += n
                if timed:
                    stamps.extend([time.perf_counter()] * n)
            tail = (tail + piece)[-16:]
    ok = b"data: [DONE]" in tail
    gaps: list[float] = []
    if timed and len(stamps) > 4:
        content = stamps[1:-2]  # drop the role chunk, the finish chunk and [DONE]
        gaps = [b - a for a, b in zip(content, content[1:])]
    return ok, max(0, events - 1), gaps


async def worker(session: aiohttp.ClientSession, args: argparse.Namespace, body: bytes,
                 window: Window, stats: Stats) -> None:
    while time.perf_counter() < window.end:
        t0 = time.perf_counter()
        try:
            if args.mode == "plain":
                ok, chunks, gaps = await one_plain(session, args.url, body)
            else:
                ok, chunks, gaps = await one_stream(session, args.url, body, args.gap_ms is not None)
            error = None if ok else "bad response"
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            ok, chunks, gaps, error = False, 0, [], type(exc).__name__
        t1 = time.perf_counter()
        if not ok:
            if t1 >= window.start:  # failures count in warm-up too: nothing may fail
                stats.failures += 1
                stats.errors[error or "?"] = stats.errors.get(error or "?", 0) + 1
            await asyncio.sleep(0.01)
            continue
        if window.counts(t1):
            stats.requests += 1
            stats.chunks += chunks
            stats.latencies.append(t1 - t0)
            stats.gaps.extend(gaps)


async def run(args: argparse.Namespace) -> dict[str, object]:
    messages = [{"role": "user", "content": args.prompt}]
    body = orjson.dumps({"model": "openai/gpt-5", "messages": messages, "stream": args.mode == "stream"})
    connector = aiohttp.TCPConnector(limit=args.concurrency, force_close=False, ttl_dns_cache=None)
    timeout = aiohttp.ClientTimeout(total=args.request_timeout)
    headers = {"Authorization": "Bearer sk-bench", "Content-Type": "application/json"}
    stats = Stats()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, headers=headers) as session:
        window = Window(args.warmup, args.duration)
        tasks = [asyncio.create_task(worker(session, args, body, window, stats)) for _ in range(args.concurrency)]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), args.warmup + args.duration + args.request_timeout + 5)
        except asyncio.TimeoutError:
            stats.errors["load generator timeout"] = 1
    gaps_drift_ms = [abs(g * 1000 - args.gap_ms) for g in stats.gaps] if args.gap_ms is not None else []
    result = asdict(stats)
    del result["latencies"], result["gaps"]
    result.update(
        duration=args.duration, concurrency=args.concurrency, mode=args.mode,
        rps=stats.requests / args.duration, chunks_per_s=stats.chunks / args.duration,
        p50_ms=_ms(percentile(stats.latencies, 50)), p99_ms=_ms(percentile(stats.latencies, 99)),
        gap_drift_p50_ms=percentile(gaps_drift_ms, 50), gap_drift_p99_ms=percentile(gaps_drift_ms, 99),
        gap_samples=len(gaps_drift_ms),
    )
    return result


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", choices=("plain", "stream"), default="plain")
    parser.add_argument("--prompt", default="bench plain")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=0.5)
    parser.add_argument("--request-timeout", type=float, default=30.0)
    parser.add_argument("--gap-ms", type=float, default=None, help="expected inter-chunk gap; records drift")
    parser.add_argument("--cpu", type=int, default=None, help="pin this process to one core")
    args = parser.parse_args()
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    sys.stdout.write(orjson.dumps(asyncio.run(run(args))).decode() + "\n")


if __name__ == "__main__":
    main()
