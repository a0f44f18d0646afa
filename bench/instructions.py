"""Instructions per request: a measure of per-request work that does not move with the machine.

Wall-clock rates on a shared machine vary by 10 % and more between runs, too much to see a
change worth a few per cent. This counts CPU instructions instead. Requests are sent through
the app's handler (middlewares and endpoint) in one process, without sockets. That runs under
valgrind's callgrind with a fixed hash seed, once with handling and once without. The
difference divided by the number of requests is printed.

    .venv/bin/python bench/instructions.py [--requests 300] [--server emulator|floor] [--source DIR]
    .venv/bin/python bench/instructions.py --served [--stream] [--concurrency 64] [--requests 5000] [--source DIR]

`--source` measures the emulator package of another checkout (a `git worktree` of an older
commit, say), to compare two commits on the same machine.

`--served` counts what `make bench` measures instead: the whole server process answering over
HTTP (aiohttp's parser, the handler, the write, the event loop). The server runs under callgrind
with `serve`, a client sends the requests from `--concurrency` keep-alive connections (64, as
`make bench`'s non-streamed load), and the count of a run with `--requests` fewer requests (only a
warm-up) is subtracted, so start-up and shutdown cancel out. The package's bytecode is compiled
beforehand, as a user's start finds it, so the warm-up run's own count is a start-up measure.
`--stream` sends the bench's streamed request instead (50 chunks, read to the end). How many
requests each wake of the event loop finds moves the count a little, as it moves the bench.

It needs valgrind. Without it, it prints the wall time per request of the same loop, which is
only comparable between runs on one quiet machine. A repeated run gives the same count to within
0.01 %, but the memory layout (the environment's size, the package's path) moves it by up to 2 %:
compare commits alternately, at a few layouts (docs/performance.md), with `--requests 5000`.
Fewer requests give a count that depends on where the cycle collector's rounds fall: each request
leaves about seven objects for it, the youngest generation is walked every ~90 requests and the
middle one every ~900, and one walk of the middle one more or less in a window of 1,000 requests
moves that window's count by a few per cent (docs/performance.md, issue 25).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import ClientSession, ClientTimeout, TCPConnector, web
from aiohttp.streams import StreamReader
from aiohttp.test_utils import make_mocked_request
from gen_scenarios import PLAIN_PROMPT, STREAM_PROMPT, write_scenarios
from servers import serve_arguments

BODY = f'{{"model":"openai/gpt-5","messages":[{{"role":"user","content":"{PLAIN_PROMPT}"}}],"stream":false}}'.encode()
STREAM_BODY = (
    f'{{"model":"openai/gpt-5","messages":[{{"role":"user","content":"{STREAM_PROMPT}"}}],"stream":true}}'.encode()
)
HEADERS = {
    "Host": "127.0.0.1:8000",
    "Authorization": "Bearer sk-bench",
    "Content-Type": "application/json",
    "Content-Length": str(len(BODY)),
}
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def build_app(server: str, scenarios: Path) -> web.Application:
    """The emulator serving the benchmark's rules, or the floor (bench/floor.py)."""
    if server == "floor":
        import floor

        app = web.Application()
        app.router.add_post("/api/v1/chat/completions", floor.chat)
        return app
    from zenmux_emulator.server.app import create_app
    from zenmux_emulator.settings import Settings

    return create_app(Settings(scenarios=[str(scenarios)], watch=False))


class ReadingProtocol:
    """What aiohttp's body reader calls on its protocol at every read, as cheap as a server's own
    (a `unittest.mock.Mock` here would add call bookkeeping that no server pays)."""

    _reading_paused = False

    def resume_reading(self, resume_parser: bool = True) -> None:
        """Nothing to resume: the whole body is already in the buffer."""

    def pause_reading(self) -> None:
        """Never called: the buffer is far below its limit."""


FOLDER = Path(tempfile.gettempdir()) / "zenmux-bench-instructions"  # one fixed path: the same work every run


async def drive(server: str, count: int, handle: bool = True, folder: Path = FOLDER) -> tuple[int, float]:
    """Build `count` requests for the benchmark's plain rule, then (with `handle`) send each
    through the app's handler; every answer must be 200. Returns how many were answered and the
    seconds that took."""
    app = build_app(server, write_scenarios(folder, 10))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        loop = asyncio.get_running_loop()
        protocol = ReadingProtocol()
        requests = []
        for _ in range(count):
            payload = StreamReader(protocol, 2**16, loop=loop)
            payload.feed_data(BODY)
            payload.feed_eof()
            request = make_mocked_request(
                "POST", "/api/v1/chat/completions", headers=HEADERS, app=app, payload=payload, client_max_size=1024**2
            )
            # The mocked request comes with a match info around a `Mock` route, which aiohttp drops
            # when it resolves the real one: each `Mock` has a class of its own, so every request
            # freed a class through the cyclic collector, work no server does (and the run that
            # only builds the requests freed them later, at another cost). Dropped here, in both runs.
            request._match_info = None
            requests.append(request)
        gc.collect()
        gc.freeze()  # as the server does once it listens
        answered = 0
        started = time.perf_counter()
        for request in requests if handle else ():
            response = await app._handle(request)
            if response.status != 200:
                raise RuntimeError(f"request answered {response.status}: {getattr(response, 'body', b'')!r}")
            answered += 1
        return answered, time.perf_counter() - started
    finally:
        await runner.cleanup()


def collected(valgrind_output: str) -> int:
    """The instruction count callgrind reports on stderr ("Collected : N")."""
    found = COLLECTED.search(valgrind_output)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {valgrind_output[-500:]}")
    return int(found.group(1))


def use_source(source: Path) -> None:
    """Import the emulator from `source` instead of the installed package."""
    sys.path.insert(0, str(source))
    import zenmux_emulator

    if not Path(zenmux_emulator.__file__).resolve().is_relative_to(source.resolve()):
        raise RuntimeError(f"emulator was imported from {zenmux_emulator.__file__}, not from {source}")


def count_instructions(server: str, requests: int, handle: bool, source: Path | None) -> int:
    argv = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--drive",
        "--server",
        server,
        "--requests",
        str(requests),
    ] + ([] if handle else ["--no-handle"])
    if source is not None:
        argv += ["--source", str(source)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the driver failed under valgrind: {done.stderr[-2000:]}")
    return collected(done.stderr)


WARM_UP = 50
"""Requests both `--served` runs send first (the first requests import and compile what a plain
request needs)."""
LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)/")


CHECKOUT = Path(__file__).resolve().parent.parent
"""The checkout this script is in: the package measured when no `--source` is given."""


def served_environment(source: Path | None) -> dict[str, str]:
    """The served runs' environment: a fixed hash seed, the package of `source` (else of this
    checkout) first on the path and its bytecode compiled beforehand (into its `__pycache__`), as a
    user's start finds it, not its source parsed anew at every start, which
    `PYTHONDONTWRITEBYTECODE` would make it. (The server runs in the scenarios' folder: `-m` puts
    the working directory first on the path, which would measure the package found there.)"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    root = (source or CHECKOUT).resolve()
    env["PYTHONPATH"] = str(root)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "zenmux_emulator")], env=env, check=True)
    return env


def served_instructions(requests: int, concurrency: int, stream: bool, env: dict[str, str]) -> int:
    """Instructions the `serve` process executes from its start to its end, having answered
    `requests` requests from `concurrency` connections: plain ones, or (`stream`) the bench's
    streamed one, whose 50 chunks the client reads to the end."""
    folder = write_scenarios(FOLDER, 10)
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m", "zenmux_emulator"]
    argv += serve_arguments(folder)
    with tempfile.TemporaryFile() as errors:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, env=env, cwd=folder)
        assert server.stdout is not None
        try:
            port = listening_port(server.stdout.readline)
            send(port, requests, concurrency, STREAM_BODY if stream else BODY)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(600)
            server.stdout.close()
        errors.seek(0)
        return collected(errors.read().decode(errors="replace"))


def listening_port(readline: Callable[[], bytes]) -> int:
    """The port from the server's first lines ("... listening on http://127.0.0.1:PORT/api/v1")."""
    for _ in range(20):
        found = LISTENING.search(readline())
        if found:
            return int(found.group(1))
    raise RuntimeError("the server did not say where it listens")


def send(port: int, requests: int, concurrency: int, body: bytes) -> None:
    """`requests` requests with `body` from `concurrency` keep-alive connections, each sending its
    next request once its last is answered (as bench/load.py does); every answer must be 200."""
    asyncio.run(_send(port, requests, concurrency, body))


async def _send(port: int, requests: int, concurrency: int, body: bytes) -> None:
    url = f"http://127.0.0.1:{port}/api/v1/chat/completions"
    headers = {k: v for k, v in HEADERS.items() if k not in ("Host", "Content-Length")}
    left = requests

    async def connection(session: ClientSession) -> None:
        nonlocal left
        while left > 0:
            left -= 1
            async with session.post(url, data=body, headers=headers) as response:
                answer = await response.read()
                if response.status != 200:
                    raise RuntimeError(f"request answered {response.status}: {answer!r}")

    timeout = ClientTimeout(total=None)
    async with ClientSession(connector=TCPConnector(limit=concurrency), timeout=timeout) as session:
        await asyncio.gather(*(connection(session) for _ in range(concurrency)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--server", choices=("emulator", "floor"), default="emulator")
    parser.add_argument("--source", type=Path, help="a checkout whose emulator package to measure")
    parser.add_argument("--served", action="store_true", help="count the whole server answering over HTTP")
    parser.add_argument("--concurrency", type=int, default=64, help="connections, with --served (make bench's: 64)")
    parser.add_argument("--stream", action="store_true", help="with --served: the bench's streamed request")
    parser.add_argument("--drive", action="store_true", help=argparse.SUPPRESS)  # the run valgrind watches
    parser.add_argument("--no-handle", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    use_source(args.source or CHECKOUT)
    if args.drive:
        asyncio.run(drive(args.server, args.requests, handle=not args.no_handle))
        return 0
    if shutil.which("valgrind") is None and args.served:
        print("--served counts instructions under valgrind, which is not installed", file=sys.stderr)
        return 1
    if shutil.which("valgrind") is None:
        _, seconds = asyncio.run(drive(args.server, args.requests))
        print(f"{args.server}: {seconds / args.requests * 1e6:,.1f} µs per request (wall time; valgrind not found)")
        return 0
    if args.served:
        env = served_environment(args.source)
        with_requests = served_instructions(WARM_UP + args.requests, args.concurrency, args.stream, env)
        warm_only = served_instructions(WARM_UP, args.concurrency, args.stream, env)
        print(
            f"served: {(with_requests - warm_only) / args.requests:,.0f} instructions per "
            f"{'streamed' if args.stream else 'plain'} request "
            f"({args.requests} requests over HTTP from {args.concurrency} connections, whole server process)"
        )
        print(f"start-up, {WARM_UP} requests and shutdown: {warm_only:,} instructions")
        return 0
    with_handling = count_instructions(args.server, args.requests, True, args.source)
    without = count_instructions(args.server, args.requests, False, args.source)
    print(
        f"{args.server}: {(with_handling - without) / args.requests:,.0f} instructions per request "
        f"({args.requests} requests through middlewares and endpoint)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
