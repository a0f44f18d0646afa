"""`--workers N`: N serving processes forked from one supervisor, accepting on one listening
socket the supervisor opened, so throughput grows with cores.

Workers share their state through Redis: `--state`'s, else a private `redis-server` the supervisor
starts (and stops) for them. The supervisor checks the scenario files first (a bad file stops
start-up as with one process), announces the address once every worker listens, starts a worker
again if one dies, and on SIGINT or SIGTERM stops them all (each ends its open streams and writes
its journal) before the private Redis.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable
from types import FrameType

from zenmux_emulator.cli.logs import JsonFormatter
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.redis_server import RedisServer, RedisUnavailable, die_with_parent, shown

log = logging.getLogger("emulator.workers")

Worker = Callable[[Settings, socket.socket, int], int]
"""Serve on the socket until told to stop, writing one byte to the file descriptor once listening."""

READY, READY_BYTES = b"\0", 4000
"""A worker's start lines, ended by READY, in one write to the supervisor's pipe (under PIPE_BUF)."""
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


def announce(ready: int, lines: list[str]) -> None:
    """In a worker that listens: hand the supervisor the lines `serve` would print."""
    os.write(ready, "\n".join(lines).encode()[:READY_BYTES] + READY)


def listen(host: str, port: int) -> socket.socket:
    """The socket every worker accepts on."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=2048)


class Supervisor:
    """Forks the workers, keeps them running, stops them."""

    def __init__(self, settings: Settings, worker: Worker, sock: socket.socket) -> None:
        self.settings = settings
        self.worker = worker
        self.sock = sock
        self.ready_r, self.ready_w = os.pipe()
        self.children: set[int] = set()
        self.stopping = False
        self.lines: list[str] = []
        """The first worker's start lines: what the supervisor prints once all listen."""

    def spawn(self) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                die_with_parent()
                os.close(self.ready_r)
                code = self.worker(self.settings, self.sock, self.ready_w)
            except BaseException:  # noqa: BLE001  # a worker reports and exits; the supervisor goes on
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        self.children.add(pid)

    def stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        self.stopping = True
        for pid in list(self.children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def reap(self) -> list[tuple[int, int]]:
        """Workers that exited since the last look: (pid, wait status)."""
        gone = []
        for pid in list(self.children):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, 0
            if done:
                self.children.discard(pid)
                gone.append((pid, status))
        return gone

    def wait_ready(self, count: int) -> bool:
        """Until `count` workers listen; False when one exits first, or on a stop or time out."""
        said = b""
        deadline = time.monotonic() + START_TIMEOUT
        while said.count(READY) < count:
            if self.stopping or self.reap() or time.monotonic() > deadline:
                return False
            readable, _, _ = select.select([self.ready_r], [], [], 0.1)
            if readable:
                said += os.read(self.ready_r, 65536)
        self.lines = said.split(READY, 1)[0].decode(errors="replace").splitlines()
        return True

    def supervise(self) -> None:
        """Until stopped: a worker that dies is started again."""
        while not self.stopping:
            for pid, status in self.reap():
                if not self.stopping:
                    log.warning("worker %d exited (%s); starting another", pid, _status(status))
                    self.spawn()
            time.sleep(0.2)

    def wait_all(self) -> None:
        deadline = time.monotonic() + STOP_TIMEOUT
        while self.children:
            self.reap()
            if time.monotonic() > deadline:
                for pid in self.children:
                    os.kill(pid, signal.SIGKILL)
                deadline = float("inf")
            time.sleep(0.05)


def _line(settings: Settings, message: str) -> str:
    """A start line as `serve` prints its own: text, or a JSON object under `--log-format json`."""
    if settings.log_format != "json":
        return message
    return JsonFormatter().format(logging.LogRecord("emulator", logging.INFO, __file__, 0, message, None, None))


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def run_workers(settings: Settings, worker: Worker) -> int:
    """Serve with `settings.workers` processes until SIGINT or SIGTERM; the exit code."""
    count = settings.workers
    private: RedisServer | None = None
    if settings.state is None:
        try:
            private = RedisServer().start()
        except RedisUnavailable as exc:
            print(
                f"zenmux-emulator: --workers {count} shares sessions, limits, balances and the journal through "
                f"Redis: give --state redis://HOST:PORT/DB, or install redis-server ({exc})",
                file=sys.stderr,
            )
            return 1
        settings = settings.model_copy(update={"state": private.url})
    try:
        try:
            sock = listen(settings.host, settings.port)
        except OSError as exc:
            print(f"zenmux-emulator: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
            return 1
        supervisor = Supervisor(settings, worker, sock)
        signal.signal(signal.SIGINT, supervisor.stop)
        signal.signal(signal.SIGTERM, supervisor.stop)
        for _ in range(count):
            supervisor.spawn()
        started = supervisor.wait_ready(count)
        if started:
            where = "a private redis-server" if private is not None else shown(settings.state or "")
            for line in supervisor.lines:
                print(line, flush=True)
            print(_line(settings, f"{count} workers; their state is shared through {where}"), flush=True)
            supervisor.supervise()
        else:
            supervisor.stop()
        supervisor.wait_all()
        sock.close()
        if not started:
            print("zenmux-emulator: not started: a worker failed to start (see above)", file=sys.stderr)
            return 1
        return 0
    finally:
        if private is not None:
            private.stop()
