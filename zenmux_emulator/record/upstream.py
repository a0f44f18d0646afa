"""Forwarding to the upstream: the caller's own request and key to the one URL given, the
answer passed back unchanged (a stream chunk by chunk, as it arrives) and captured."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import aiohttp
from aiohttp import web
from yarl import URL

from zenmux_emulator.record.capture.exchange import EventSplitter, Exchange

HOP_BY_HOP = frozenset({"host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te",
                        "trailer", "proxy-authorization", "proxy-authenticate", "accept-encoding", "expect"})
"""Request headers that belong to one connection (or ask for an encoding we would have to undo)."""
NOT_PASSED_BACK = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding",
                             "date", "server"})
"""Response headers aiohttp writes itself for the client's connection."""
STRIPPED_SUFFIXES = ("/api/v1", "/api/anthropic/v1", "/api/anthropic")


def base_of(upstream: str) -> URL:
    """The upstream's origin (and path prefix), without a trailing API path users copy from SDK
    settings (`https://zenmux.ai/api/v1` works like `https://zenmux.ai`)."""
    url = URL(upstream)
    path = url.path.rstrip("/")
    for suffix in STRIPPED_SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return url.with_path(path or "/").with_query(None).with_fragment(None)


def shown(url: URL) -> str:
    """The URL for messages and files: no user name or password."""
    return str(url.with_user(None))


class Upstream:
    """One client session to one upstream; nothing else is ever contacted (no redirects followed)."""

    def __init__(self, upstream: str) -> None:
        self.base = base_of(upstream)
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=None)
        self._session = aiohttp.ClientSession(timeout=timeout, auto_decompress=True)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    def url_for(self, path_qs: str) -> URL:
        prefix = self.base.path.rstrip("/")
        return self.base.join(URL(prefix + path_qs)) if prefix else self.base.join(URL(path_qs))

    async def forward(self, request: web.Request, body: bytes) -> tuple[Exchange, web.StreamResponse | None]:
        """Send the request on; answer the client as the upstream does. A stream's response is
        returned still open (its end not yet written) so the recording can finish first; a JSON
        answer is returned unsent. None when the upstream could not be reached."""
        assert self._session is not None, "Upstream.start() first"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        loop = asyncio.get_running_loop()
        started = loop.time()
        exchange = Exchange()
        try:
            upstream = await self._session.post(self.url_for(request.path_qs), data=body, headers=headers,
                                                allow_redirects=False)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            exchange.unreachable = type(exc).__name__
            return exchange, None
        async with upstream:
            exchange.status = upstream.status
            exchange.headers = upstream.headers
            exchange.content_type = upstream.content_type
            passed = passed_back(upstream.headers)
            if upstream.content_type != "text/event-stream":
                try:
                    exchange.body = await upstream.read()
                except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                    exchange.unreachable = type(exc).__name__
                    return exchange, None
                return exchange, web.Response(status=upstream.status, body=exchange.body, headers=passed)
            exchange.stream = True
            response = web.StreamResponse(status=upstream.status, headers=passed)
            await response.prepare(request)
            splitter = EventSplitter()
            try:
                async for chunk in upstream.content.iter_any():
                    splitter.feed(chunk, (loop.time() - started) * 1000)
                    try:
                        await response.write(chunk)
                    except ConnectionResetError:
                        exchange.client_gone = True
                        break
            except (aiohttp.ClientError, TimeoutError, OSError):
                exchange.broken = True
            exchange.events = splitter.events
            return exchange, response


def passed_back(headers: Mapping[str, str]) -> dict[str, str]:
    """The upstream's response headers the client gets (multi-valued ones joined)."""
    result: dict[str, str] = {}
    for key, value in headers.items():
        if key.lower() in NOT_PASSED_BACK:
            continue
        result[key] = f"{result[key]}, {value}" if key in result else value
    return result
