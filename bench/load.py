"""Closed-loop HTTP/1.1 load generator: N keep-alive connections, one request in flight on each,
fixed duration.

It speaks HTTP through a bare `asyncio.Protocol` (request bytes prepared once, responses parsed
by hand: Content-Length or chunked), so it costs a fraction of what a full client does and is
not the bottleneck of what it measures. It reports its own CPU use (`load_cpu_share`, the share
of one core it used during the window) so a run can show that. Run it as its own process
(pinned to its own core by `--cpu`); it prints one JSON object with counts, rates and
latency/gap percentiles on stdout.

Counting: a plain request counts when it *finishes* inside the measurement window; a streamed
chunk counts when it *arrives* inside the window (so long streams are not rounded to whole
requests). Failures count from the start of warm-up: nothing may fail.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit

import orjson

HEADER_END = b"\r\n\r\n"


@dataclass
class Stats:
    """What the connections collected inside the measurement window."""

    requests: int = 0
    failures: int = 0
    chunks: int = 0
    latencies: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)


@dataclass
class Answer:
    """One response as the client saw it: status, body (plain) and event arrival times (stream)."""

    status: int = 0
    body: bytearray = field(default_factory=bytearray)
    stamps: list[float] = field(default_factory=list)
    tail: bytes = b""


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


class Connection(asyncio.Protocol):
    """One keep-alive connection; `send()` writes a request and resolves with its `Answer`.

    The parser knows just enough HTTP/1.1 for these servers: a status line, headers, then a
    Content-Length body or a chunked one. In a streamed body every blank line (`\\n\\n`) ends an
    SSE event; each is stamped with the time the bytes carrying it arrived.
    """

    def __init__(self, streamed: bool) -> None:
        self.streamed = streamed
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[Answer] | None = None
        self.lost: BaseException | None = None
        self._reset()

    def _reset(self) -> None:
        self.answer = Answer()
        self.buffer = bytearray()
        self.in_headers = True
        self.length: int | None = None  # Content-Length body: bytes still to come
        self.chunk_left = 0  # chunked body: data bytes of the current chunk still to come
        self.skip = 0  # chunked body: bytes of the CRLF after the chunk's data still to come

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionResetError("connection closed by the server")
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(self.lost)

    def send(self, request: bytes) -> asyncio.Future[Answer]:
        if self.lost is not None or self.transport is None:
            raise ConnectionResetError("connection is closed")
        self._reset()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.waiter

    def data_received(self, data: bytes) -> None:
        if self.in_headers:
            self.buffer += data
            end = self.buffer.find(HEADER_END)
            if end < 0:
                return
            head, data = bytes(self.buffer[:end]), bytes(self.buffer[end + 4 :])
            self.buffer.clear()
            self.in_headers = False
            lines = head.split(b"\r\n")
            self.answer.status = int(lines[0].split()[1])
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    self.length = int(value)
                elif name == b"transfer-encoding" and b"chunked" in value.lower():
                    self.length = None
        if self.length is not None:
            self.answer.body += data
            if len(self.answer.body) >= self.length:
                self._finish()
            return
        self._chunked(data)

    def _chunked(self, data: bytes) -> None:
        now = time.perf_counter()
        self.buffer += data
        buf, pos, payload = self.buffer, 0, bytearray()
        while pos < len(buf):
            if self.chunk_left:  # the current chunk's data
                take = min(self.chunk_left, len(buf) - pos)
                payload += buf[pos : pos + take]
                pos += take
                self.chunk_left -= take
                continue
            if self.skip:  # the CRLF after a chunk's data
                take = min(self.skip, len(buf) - pos)
                pos += take
                self.skip -= take
                continue
            line_end = buf.find(b"\r\n", pos)
            if line_end < 0:
                break
            size = int(bytes(buf[pos:line_end]).split(b";")[0], 16)
            if size == 0:  # the last chunk, then the blank line (these servers send no trailers)
                if len(buf) < line_end + 4:
                    break  # wait for the blank line: it must not be read as the next answer's start
                self._events(payload, now)
                self._finish()
                return
            pos = line_end + 2
            self.chunk_left, self.skip = size, 2
        del buf[:pos]
        self._events(payload, now)

    def _events(self, payload: bytearray, now: float) -> None:
        """Count the SSE event ends (blank lines) in this payload, one stamp each."""
        if not payload:
            return
        joined = self.answer.tail + payload
        ends = joined.count(b"\n\n") - self.answer.tail.count(b"\n\n")
        if ends:
            self.answer.stamps.extend([now] * ends)
        self.answer.tail = bytes(joined[-64:])
        if not self.streamed:
            self.answer.body += payload

    def _finish(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(self.answer)


def request_bytes(url: str, body: bytes) -> tuple[str, int, bytes]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    head = (
        f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer sk-bench\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return host, port, head.encode() + body


def judge(answer: Answer, streamed: bool) -> bool:
    if answer.status != 200:
        return False
    if streamed:
        return b"data: [DONE]" in answer.tail
    return answer.body.startswith(b"{") and b'"chat.completion"' in answer.body


async def client(host: str, port: int, request: bytes, args: argparse.Namespace, window: Window, stats: Stats) -> None:
    """One connection's loop: send, wait for the whole answer, record, again until the window ends."""
    streamed = args.mode == "stream"
    loop = asyncio.get_running_loop()
    conn: Connection | None = None
    while time.perf_counter() < window.end:
        t0 = time.perf_counter()
        error = None
        try:
            if conn is None or conn.lost is not None:
                _, conn = await loop.create_connection(lambda: Connection(streamed), host, port)
            answer = await asyncio.wait_for(conn.send(request), args.request_timeout)
            ok = judge(answer, streamed)
            error = None if ok else f"bad response ({answer.status})"
        except (TimeoutError, OSError) as exc:
            ok, answer, error = False, Answer(), type(exc).__name__
            if conn is not None and conn.transport is not None:
                conn.transport.close()
            conn = None
        t1 = time.perf_counter()
        if not ok:
            if t1 >= window.start:
                stats.failures += 1
                stats.errors[error or "?"] = stats.errors.get(error or "?", 0) + 1
            await asyncio.sleep(0.01)
            continue
        if streamed:
            events = answer.stamps[:-1]  # not [DONE]
            stats.chunks += sum(1 for t in events if window.counts(t))
            if args.gap_ms is not None and len(events) > 3:
                content = events[1:-1]  # not the role chunk nor the finish chunk
                # a gap counts when its second chunk arrives in the window, as chunks do: a
                # stream longer than the window still shows its gaps
                stats.gaps.extend(b - a for a, b in itertools.pairwise(content) if window.counts(b))
        if window.counts(t1):
            stats.requests += 1
            stats.latencies.append(t1 - t0)
    if conn is not None and conn.transport is not None:
        conn.transport.close()


async def run(args: argparse.Namespace) -> dict[str, object]:
    messages = [{"role": "user", "content": args.prompt}]
    body = orjson.dumps({"model": "openai/gpt-5", "messages": messages, "stream": args.mode == "stream"})
    host, port, request = request_bytes(args.url, body)
    stats = Stats()
    window = Window(args.warmup, args.duration)
    tasks = [asyncio.create_task(client(host, port, request, args, window, stats)) for _ in range(args.concurrency)]
    cpu_at_start: float | None = None

    async def sample_cpu() -> None:
        nonlocal cpu_at_start
        await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
        cpu_at_start = cpu_seconds()

    sampler = asyncio.create_task(sample_cpu())
    await asyncio.sleep(max(0.0, window.end - time.perf_counter()))
    cpu_in_window = cpu_seconds() - cpu_at_start if cpu_at_start is not None else None
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), args.request_timeout + 5)
    except TimeoutError:
        stats.errors["load generator timeout"] = 1
    await sampler
    gaps_drift_ms = [abs(g * 1000 - args.gap_ms) for g in stats.gaps] if args.gap_ms is not None else []
    result = asdict(stats)
    del result["latencies"], result["gaps"]
    result.update(
        duration=args.duration,
        concurrency=args.concurrency,
        mode=args.mode,
        rps=stats.requests / args.duration,
        chunks_per_s=stats.chunks / args.duration,
        p50_ms=_ms(percentile(stats.latencies, 50)),
        p99_ms=_ms(percentile(stats.latencies, 99)),
        gap_drift_p50_ms=percentile(gaps_drift_ms, 50),
        gap_drift_p99_ms=percentile(gaps_drift_ms, 99),
        gap_p50_ms=_ms(percentile(stats.gaps, 50)),
        gap_p99_ms=_ms(percentile(stats.gaps, 99)),
        gap_samples=len(gaps_drift_ms),
        load_cpu_share=None if cpu_in_window is None else cpu_in_window / args.duration,
    )
    return result


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
