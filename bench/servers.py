"""Start a server subprocess (pinned to chosen cores), time it to its first answer, read its RSS, stop it."""

from __future__ import annotations

import http.client
import importlib.util
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import orjson

#: "... listening on http://127.0.0.1:PORT/api/v1" (emulator, baseline, floor) or without the path (aimock);
#: the line must be whole, or a port could be read before its last digits arrive.
LISTEN = re.compile(r"listening on (http://127\.0\.0\.1:(\d+))(?:/api/v1)?\s")


def serve_arguments(scenarios: Path) -> list[str]:
    """`zenmux-emulator`'s arguments for a benchmark server: loopback, a free port, the rules of
    `scenarios`, no file watching, warnings only."""
    return [
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--scenarios",
        str(scenarios),
        "--no-watch",
        "--log-level",
        "warning",
    ]


def compile_package() -> None:
    """Compile the emulator package's bytecode into its `__pycache__`, as a user's install has it
    (pip compiles what it installs); without it, `PYTHONDONTWRITEBYTECODE` (set on the test host)
    would make every timed start parse the package's source anew."""
    found = importlib.util.find_spec("zenmux_emulator")
    assert found is not None and found.origin is not None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(found.origin).parent)], env=env, check=True)


def rss_kib(pid: int) -> int | None:
    """VmRSS of a process in KiB, from /proc/PID/status; None when unavailable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a process has used, from /proc/PID/stat; None when unavailable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _pin(cores: set[int] | None) -> None:
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)


class Server:
    """One server process; `start()` returns the seconds from spawn to the first 200 answer."""

    def __init__(self, name: str, argv: Sequence[str], cores: set[int] | None, probe_prompt: str) -> None:
        self.name = name
        self.argv = list(argv)
        self.cores = cores
        self.probe_body = orjson.dumps(
            {"model": "openai/gpt-5", "messages": [{"role": "user", "content": probe_prompt}]}
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.url = ""
        self.startup_s: float | None = None
        self.startup_cpu_s: float | None = None
        """CPU time (user + system) the process used until its first answer."""
        self._drainer: threading.Thread | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 120.0) -> float:
        t0 = time.perf_counter()
        cores = self.cores
        self.proc = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=lambda: _pin(cores)
        )
        assert self.proc.stdout is not None
        deadline = t0 + timeout
        seen = b""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while not (match := LISTEN.search(seen.decode(errors="replace"))):
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{self.name} did not start: {seen.decode(errors='replace')[-2000:]}")
                if sel.select(left):
                    seen += os.read(self.proc.stdout.fileno(), 65536)
        self.url, self.port = f"{match.group(1)}/api/v1", int(match.group(2))
        self._drainer = threading.Thread(target=self._drain, daemon=True)  # a full pipe would block the server
        self._drainer.start()
        self._probe(deadline)
        self.startup_s = time.perf_counter() - t0
        self.startup_cpu_s = cpu_seconds(self.proc.pid)
        return self.startup_s

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while os.read(self.proc.stdout.fileno(), 65536):
            pass

    def _probe(self, deadline: float) -> None:
        """Send one non-streamed request, retrying until it is answered 200."""
        while time.perf_counter() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                conn.request(
                    "POST",
                    "/api/v1/chat/completions",
                    body=self.probe_body,
                    headers={"Authorization": "Bearer sk-bench", "Content-Type": "application/json"},
                )
                resp = conn.getresponse()
                resp.read()
                conn.close()
                if resp.status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.002)
        raise RuntimeError(f"{self.name} never answered 200")

    def rss_kib(self) -> int | None:
        return rss_kib(self.pid)

    def cpu_seconds(self) -> float | None:
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._drainer is not None:
            self._drainer.join(5)  # the pipe ends with the process
            self._drainer = None
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.stdout.close()
