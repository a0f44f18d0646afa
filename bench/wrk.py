"""The rate loads from wrk (Debian's package `wrk`; `make bench` installs it like redis-server):
one wrk thread pinned with taskset to a core the server does not run on, N keep-alive connections
posting the same chat request, for a fixed time.

wrk's own report is read from a `done` hook in its Lua script, one JSON line (`WRK {...}`): the
requests, the run's duration, the errors by kind (non-2xx answers among them) and the latency
percentiles. wrk reads a streamed (chunked) answer to its end, so a stream counts as one request;
its events are counted once per server (`events_per_answer`) to give chunks per second.
"""

from __future__ import annotations

import http.client
import json
import resource
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

SCRIPT = """
wrk.method = "POST"
wrk.body = [==[{body}]==]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer sk-bench"

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK {{\\"requests\\": %d, \\"duration_us\\": %d, \\"bytes\\": %d, \\"connect\\": %d, \\"read\\": %d, "
    .. "\\"write\\": %d, \\"status\\": %d, \\"timeout\\": %d, \\"p50_us\\": %d, \\"p99_us\\": %d}}\\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def wrk_path() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise RuntimeError("the bench's load comes from wrk: apt-get install wrk (make bench installs it)")
    return found


def body(prompt: str, stream: bool) -> bytes:
    """The chat request every connection sends."""
    return orjson.dumps({"model": "openai/gpt-5", "messages": [{"role": "user", "content": prompt}], "stream": stream})


def write_script(folder: Path, prompt: str, stream: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"post-{'stream' if stream else 'plain'}-{abs(hash(prompt)) % 10**8}.lua"
    path.write_text(SCRIPT.format(body=body(prompt, stream).decode()), encoding="utf-8")
    return path


def parse(output: str) -> dict[str, Any]:
    """wrk's `WRK {...}` line as rates: requests/s, failures (errors of every kind), p50/p99 in ms."""
    line = next((line for line in output.splitlines() if line.startswith("WRK ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no report: {output[-2000:]}")
    raw: dict[str, int] = json.loads(line.removeprefix("WRK "))
    seconds = raw["duration_us"] / 1e6
    failures = sum(raw[kind] for kind in ("connect", "read", "write", "status", "timeout"))
    return {
        "requests": raw["requests"],
        "seconds": seconds,
        "rps": raw["requests"] / seconds if seconds else 0.0,
        "failures": failures,
        "p50_ms": raw["p50_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "wrk": raw,
    }


def run(url: str, script: Path, connections: int, seconds: float, core: int | None) -> dict[str, Any]:
    """One wrk run against `url` (pinned to `core` when given); its parsed report and the share of a
    core wrk itself used (`load_cpu_share`)."""
    duration = max(1, round(seconds))
    argv = [wrk_path(), "-t1", f"-c{connections}", f"-d{duration}s", "--timeout", "30s", "-s", str(script), url]
    if core is not None and shutil.which("taskset"):
        argv = ["taskset", "-c", str(core), *argv]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 120, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr[-2000:]}")
    result = parse(done.stdout)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result["load_cpu_share"] = used / result["seconds"] if result["seconds"] else None
    return result


def events_per_answer(url: str, prompt: str) -> int:
    """The server-sent events (`data:` lines but `[DONE]`) in one streamed answer to `prompt`."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=30)
    try:
        conn.request(
            "POST",
            parts.path,
            body=body(prompt, True),
            headers={"Authorization": "Bearer sk-bench", "Content-Type": "application/json"},
        )
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    return sum(1 for line in text.splitlines() if line.startswith("data:") and line.strip() != "data: [DONE]")
