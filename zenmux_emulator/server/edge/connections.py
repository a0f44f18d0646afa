"""The connections the server holds: how long a new one may take to send a whole request header,
how many there may be, and how a malformed request is logged.

aiohttp closes a connection that stays idle past its `keepalive_timeout` (from its opening, and
after each response); `GuardedServer` adds to aiohttp's server:

- a header deadline: a connection that has not sent one whole request header within
  `header_timeout` seconds of opening is closed (a slow-header client, one that never speaks);
- a connection cap: at `cap` open connections, a new one makes room by closing the one that has
  waited longest without a request in progress (a slow-header or idle kept-alive one); when every
  connection is busy with a request, the new one is refused. The cap stays below the process's
  open-file limit (`default_cap`), so that slow clients cannot take every file and starve the
  requests that do arrive.

`ServerLog` logs what aiohttp answers 400 by itself (bytes that are not HTTP, a bad header line,
a request line too long) on one line at info, where aiohttp logs a traceback at error. The client's
bytes in that line are an argument, never the format string (a `%` in them is shown as sent), and a
credential in them (a secret header's value, a `Bearer` token, a `key=` in the query) is masked.
"""

from __future__ import annotations

import asyncio
import logging
import re
import resource
import time
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

from zenmux_emulator.core.journal.redact import is_secret

log = logging.getLogger("emulator.connections")

RESERVED_FILES = 64
"""Open files kept out of the cap: the listening socket, scenario files, the journal file, logs."""
_REPORT_EVERY_S = 10.0


def default_cap() -> int:
    """Three quarters of the open-file limit less `RESERVED_FILES` (at least 16): asyncio accepts
    connections in bursts (up to the listen backlog at a time) before the server sees them, so
    the cap leaves a burst or two of room below the limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 65_536
    return max(16, (soft - RESERVED_FILES) * 3 // 4)


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    header_timeout: float
    """Seconds a new connection has to send one whole request header."""
    cap: int
    """Open connections at most."""


def _busy(handler: RequestHandler) -> bool:
    """Whether a request is in progress on the connection (aiohttp's own flag)."""
    return handler._request_in_progress


def _spoke(handler: RequestHandler) -> bool:
    """Whether the connection has sent at least one whole request header."""
    return handler._request_count > 0


def _peer(transport: asyncio.BaseTransport | None) -> str:
    peer = transport.get_extra_info("peername") if transport is not None else None
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"


class GuardedServer(web.Server):
    """aiohttp's low-level server, as the runner made it, with the header deadline and the cap."""

    def __init__(self, made: web.Server, limits: ConnectionLimits) -> None:
        self.__dict__.update(vars(made))  # the same server: handler, factory, kwargs, connections
        self.limits = limits
        self._deadlines: dict[RequestHandler, asyncio.TimerHandle] = {}
        self._made_room = 0
        self._refused = 0
        self._reported = 0.0
        self._silent = 0
        self._silent_reported = 0.0

    def connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        if len(self._connections) >= self.limits.cap:
            self._make_room(transport)
        super().connection_made(handler, transport)
        self._deadlines[handler] = asyncio.get_running_loop().call_later(
            self.limits.header_timeout, self._header_deadline, handler
        )

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        deadline = self._deadlines.pop(handler, None)
        if deadline is not None:
            deadline.cancel()
        super().connection_lost(handler, exc)

    def _header_deadline(self, handler: RequestHandler) -> None:
        self._deadlines.pop(handler, None)
        if not _spoke(handler) and handler.transport is not None:
            peer = _peer(handler.transport)
            handler.force_close()
            self._silent += 1
            now = time.monotonic()
            if now - self._silent_reported >= _REPORT_EVERY_S:  # one line per ten seconds, however many
                log.info(
                    "closed %d connections (the last from %s) that sent no whole request header within %g s",
                    self._silent,
                    peer,
                    self.limits.header_timeout,
                )
                self._silent_reported, self._silent = now, 0

    def _make_room(self, transport: asyncio.Transport) -> None:
        """Close the connections without a request in progress, oldest first, down to an eighth
        below the cap (room for the next burst at once); refuse the new one when all are busy."""
        open_ = [h for h in self._connections if h.transport is not None]
        if len(open_) < self.limits.cap:
            return  # some are closing already
        excess = len(open_) - (self.limits.cap - max(1, self.limits.cap // 8)) + 1
        idle = [h for h in open_ if not _busy(h)][:excess]
        for handler in idle:
            handler.force_close()
        self._made_room += len(idle)
        if not idle:
            transport.close()
            self._refused += 1
        now = time.monotonic()
        if now - self._reported >= _REPORT_EVERY_S:
            self._reported = now
            log.warning(
                "connection cap of %d reached: closed %d waiting connections (the longest waiting "
                "first) to make room, refused %d new ones (every connection busy) since the last report",
                self.limits.cap,
                self._made_room,
                self._refused,
            )
            self._made_room = self._refused = 0


_OUT_OF_FILES = "socket.accept() out of system resource"


def report_accept_failures(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio logs each accept that fails for want of files at error with a traceback (hundreds in
    a burst); log one line instead, and leave every other report to the handler there was."""
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _OUT_OF_FILES:
            log.warning(
                "cannot accept a connection: %s; asyncio tries again in a second (lower --max-connections "
                "or raise the open-file limit)",
                context.get("exception"),
            )
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


_QUOTED = re.compile(r"""(b?['"])(.*?)(['"])""")
_SCHEME_TOKEN = re.compile(r"(?i)\b(bearer|basic)\s+[^\s'\"]+")
_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:key|[^=&\s]*(?:token|secret|password|api-?key|auth|signature|credential)[^=&\s]*)=)[^&\s'\"]*"
)


def _masked_line(found: re.Match[str]) -> str:
    """A quoted header line aiohttp refused, its value masked when its name is a credential's."""
    opening, text, closing = found.groups()
    name = re.split(r"[\s:]", text, maxsplit=1)[0]
    return f"{opening}{name} ***{closing}" if is_secret(name.lower()) else found.group(0)


def shown_detail(message: str) -> str:
    """aiohttp's description of a malformed request on one line, at most 200 characters, with the
    credentials the client's bytes may hold masked."""
    detail = _QUOTED.sub(_masked_line, " ".join(message.split()))
    detail = _SECRET_PARAM.sub(r"\1***", _SCHEME_TOKEN.sub(r"\1 ***", detail))
    return detail[:200]


class ServerLog(logging.LoggerAdapter):  # type: ignore[type-arg]  # generic only in typeshed
    """aiohttp's server logger, with its report of a request it answered 400 by itself (not HTTP,
    a bad header line, a line too long) turned into one line at info, without the traceback."""

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info")
        if isinstance(exc, HttpProcessingError):
            kwargs.pop("exc_info")
            said = str(msg) % args if args else str(msg)  # aiohttp's own format and arguments
            level, msg = logging.INFO, "malformed HTTP request answered %s: %s (%s)"
            args = (exc.code, said, shown_detail(str(exc.message)))
        super().log(level, msg, *args, **kwargs)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        return msg, kwargs


SERVER_LOG = ServerLog(logging.getLogger("aiohttp.server"))
