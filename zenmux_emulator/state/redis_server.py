"""A private `redis-server` child process: what `--workers N` shares its state through when no
`--state` is given, and what the test suite runs its shared-state tests against. Nothing is
saved to disk; the server ends with its owner."""

from __future__ import annotations

import ctypes
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit, urlunsplit

BINARY = "redis-server"


class RedisUnavailable(RuntimeError):
    """No `redis-server` to start, or it did not answer."""


PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child process: be sent SIGTERM when the parent dies, however it dies (Linux; elsewhere
    nothing), so a supervisor killed with SIGKILL leaves no worker or redis-server behind."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def shown(url: str) -> str:
    """A Redis URL as logs may show it: without its user and password."""
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """`with RedisServer() as redis:` runs one; `redis.url` names it (a Unix socket in a temporary
    folder, or 127.0.0.1:`port` when a port is given)."""

    def __init__(self, port: int | None = None, binary: str | None = None, start_timeout: float = 15.0) -> None:
        found = binary or shutil.which(BINARY)
        if found is None:
            raise RedisUnavailable(f"{BINARY} is not on PATH (Debian: apt-get install redis-server)")
        self.binary = found
        self.port = port
        self.start_timeout = start_timeout
        self.folder = Path(tempfile.mkdtemp(prefix="zme-redis-"))
        self.socket = self.folder / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.port is not None:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket}?db=0"

    def start(self) -> Self:
        """Start it (again, after `stop`: on the same port, empty)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [
            self.binary,
            "--port",
            str(self.port or 0),
            "--bind",
            "127.0.0.1",
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.folder),
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.folder / "redis.log"),
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )  # only prctl, no locks
        deadline = time.monotonic() + self.start_timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = self.folder / "redis.log"
                said = log.read_text(errors="replace")[-500:] if log.exists() else ""
                self.stop()
                raise RedisUnavailable(f"{BINARY} did not start: {said.strip() or 'no answer'}")
            time.sleep(0.02)
        return self

    def _answers(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.settimeout(1.0)
                probe.connect(str(self.socket))
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
