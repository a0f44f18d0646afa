"""Probe: do slow clients starve a normal request? (issue 17, defect 6)

Starts `zenmux-emulator serve` with the common open-file limit of 1,024 (`ulimit -n 1024`), opens
1,200 connections that each send half a request header and then nothing (slowloris), and then
times one normal chat request on a fresh connection. Reports its status and time, how many of the
slow connections the server closed, and when.

    .venv/bin/python tools/probe_slow_clients.py [--clients 1200] [--files 1024] [-- serve options]

The figures are recorded in docs/performance.md ("Slow clients"). It measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)/api/v1")
HEAD = b"POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
BODY = json.dumps({"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello"}]}).encode()
REQUEST = (
    HEAD
    + b"Authorization: Bearer sk-probe\r\nContent-Type: application/json\r\nConnection: close\r\n"
    + f"Content-Length: {len(BODY)}\r\n\r\n".encode()
    + BODY
)


def start(files: int, extra: list[str]) -> tuple[subprocess.Popen[str], int]:
    script = Path(sys.executable).with_name("zenmux-emulator")
    scenarios = Path(__file__).resolve().parent.parent / "scenarios"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    process = subprocess.Popen(
        [str(script), "serve", "--port", "0", "--scenarios", str(scenarios), "--no-watch", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    assert process.stdout is not None
    found = LISTENING.search(process.stdout.readline())
    if found is None:
        process.kill()
        raise SystemExit("the emulator did not start")
    return process, int(found.group(1))


def normal_request(port: int) -> tuple[str, float]:
    began = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(REQUEST)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        status = data.split(b" ", 2)[1].decode() if data else "no answer"
    except OSError as exc:
        status = f"failed: {exc}"
    return status, time.perf_counter() - began


def closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=1200)
    parser.add_argument("--files", type=int, default=1024)
    parser.add_argument("serve", nargs="*", help="extra `serve` options, after --")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.clients + 256)), hard))
    process, port = start(args.files, args.serve)
    slow: list[socket.socket] = []
    try:
        began = time.perf_counter()
        for _ in range(args.clients):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                sock.sendall(HEAD)
                slow.append(sock)
            except OSError:
                break
        opened = time.perf_counter() - began
        time.sleep(0.5)
        status, took = normal_request(port)
        gone = sum(closed(s) for s in slow)
        print(f"{len(slow)} slow clients opened in {opened:.2f} s (server limit: {args.files} open files)")
        print(f"normal request: {status} in {took:.3f} s")
        print(f"slow clients the server had closed by then: {gone}")
        time.sleep(11)
        print(f"slow clients closed 11 s later: {sum(closed(s) for s in slow)} of {len(slow)}")
    finally:
        for sock in slow:
            sock.close()
        process.terminate()
        _, stderr = process.communicate(timeout=10)
        lines = [line for line in stderr.splitlines() if "connection" in line]
        print(
            f"server log: {len(stderr.splitlines())} lines, {len(lines)} about connections, "
            f"{stderr.count('Traceback')} tracebacks"
        )
        for line in lines[:3]:
            print("  " + line[:200])


if __name__ == "__main__":
    main()
