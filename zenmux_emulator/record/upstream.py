"""Forwarding to the upstream: the caller's own request and key to the one URL given, the
answer passed back unchanged (a stream chunk by chunk, as it arrives) and captured.

The upstream is given up on: `CONNECT_S` to connect, `READ_S` of silence (between two chunks of a
stream, or before an answer), `TOTAL_S` for an answer that is not a stream; an answer (a
stream's bytes counted too) past `max_bytes` once inflated stops there (a gzip bomb too); and the
call is cancelled, its connection closed, when the client leaves before it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Mapping
from contextlib import suppress
from typing import TypeVar

import aiohttp
from aiohttp import web
from yarl import URL

from zenmux_emulator.record.capture.exchange import EventSplitter, Exchange

HOP_BY_HOP = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "proxy-authorization",
        "proxy-authenticate",
        "accept-encoding",
        "expect",
    }
)
"""Request headers that belong to one connection (or ask for an encoding we would have to undo)."""
NOT_PASSED_BACK = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding", "date", "server"}
)
"""Response headers aiohttp writes itself for the client's connection."""
CONNECT_S = 30.0
READ_S = 300.0
"""Silence from the upstream past this is a hung call (a reasoning model may think for minutes)."""
TOTAL_S = 900.0
"""An answer that is not a stream, whole."""
CLIENT_CHECK_S = 0.25
"""How often a forwarded call looks whether its client is still there."""
ENDING_GRACE_S = 0.5
"""How long a forwarded call whose client left may still take to end before it is cancelled: a
client that read a stream's last event hangs up before the upstream's end of the body arrives."""
T = TypeVar("T")


def api_paths(base_paths: Iterable[str]) -> tuple[str, ...]:
    """The API paths a copied base URL may end in: each face's base path, and it with `/v1` (the
    Anthropic SDK's), longest first."""
    paths = {path.rstrip("/") + suffix for path in base_paths for suffix in ("/v1", "")}
    return tuple(sorted(paths, key=lambda path: (-len(path), path)))


def base_of(upstream: str, base_paths: Iterable[str] | None = None) -> URL:
    """The upstream's origin (and path prefix), without a trailing API path users copy from SDK
    settings (`https://zenmux.ai/api/v1` works like `https://zenmux.ai`); `base_paths`: the
    registered faces' (`FaceSpec.base_path`), the shipped faces' by default."""
    if base_paths is None:
        from zenmux_emulator.faces.shipped import FACES  # the default only: the app passes its own

        base_paths = (face.base_path for face in FACES)
    url = URL(upstream)
    path = url.path.rstrip("/")
    for suffix in api_paths(base_paths):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return url.with_path(path or "/").with_query(None).with_fragment(None)


def shown(url: URL) -> str:
    """The URL for messages and files: no user name or password."""
    return str(url.with_user(None))


class Upstream:
    """One client session to one upstream; nothing else is ever contacted (no redirects followed)."""

    def __init__(
        self, upstream: str, max_bytes: int, base_paths: Iterable[str] | None = None, key: str | None = None
    ) -> None:
        self.base = base_of(upstream, base_paths)
        self.max_bytes = max_bytes
        self.key = key
        """Sent in place of the caller's credentials when given (`Settings.upstream_key`)."""
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_S, sock_read=READ_S)
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
        path_qs = request.path_qs
        if self.key is not None:
            headers, keyed = with_key(headers, request.rel_url, self.key)
            path_qs = keyed or path_qs
        loop = asyncio.get_running_loop()
        started = loop.time()
        exchange = Exchange()
        try:
            upstream = await self._session.post(
                self.url_for(path_qs), data=body, headers=headers, allow_redirects=False
            )
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
                    async with asyncio.timeout(TOTAL_S):
                        exchange.body = await self._read(upstream)
                except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                    exchange.unreachable = type(exc).__name__
                    return exchange, None
                except TooLarge as exc:
                    exchange.unreachable = str(exc)
                    return exchange, None
                return exchange, web.Response(status=upstream.status, body=exchange.body, headers=passed)
            exchange.stream = True
            response = web.StreamResponse(status=upstream.status, headers=passed)
            await response.prepare(request)
            splitter = EventSplitter()
            received = 0
            try:
                async for chunk in upstream.content.iter_any():
                    received += len(chunk)
                    if received > self.max_bytes:  # cut off here, as a broken stream
                        exchange.broken = True
                        break
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

    async def _read(self, upstream: aiohttp.ClientResponse) -> bytes:
        """The answer's body, inflated, up to `max_bytes` (TooLarge past it)."""
        parts: list[bytes] = []
        size = 0
        async for chunk in upstream.content.iter_chunked(64 * 1024):
            size += len(chunk)
            if size > self.max_bytes:
                raise TooLarge(f"its answer is larger than {self.max_bytes} bytes")
            parts.append(chunk)
        return b"".join(parts)


class TooLarge(Exception):
    """The upstream's answer is past the size the recorder reads."""


async def unless_client_leaves(request: web.Request, work: Awaitable[T]) -> T | None:
    """`work`'s result, or None once the client's connection closed first and the work did not end
    within `ENDING_GRACE_S` (it is then cancelled: a forwarded call holds its upstream connection
    hardly longer than its client). A stream the client read to its last event ends in the grace,
    and is recorded."""
    task = asyncio.ensure_future(work)
    while True:
        done, _ = await asyncio.wait({task}, timeout=CLIENT_CHECK_S)
        if done:
            return task.result()
        transport = request.transport
        if transport is None or transport.is_closing():
            done, _ = await asyncio.wait({task}, timeout=ENDING_GRACE_S)
            if done:
                return task.result()
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
            return None


KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")
"""Where a face's clients put their key (Gemini's may also come as `?key=`)."""


def with_key(headers: dict[str, str], url: URL, key: str) -> tuple[dict[str, str], str | None]:
    """The request's headers and path with `key` in place of whatever credentials the caller sent
    (a Bearer `Authorization` when it sent none); the path and query only when a `?key=` was replaced."""
    replaced = {}
    for name, value in headers.items():
        lowered = name.lower()
        if lowered == "authorization":
            scheme, _, _ = value.partition(" ")
            replaced[name] = f"{scheme or 'Bearer'} {key}"
        elif lowered in KEY_HEADERS:
            replaced[name] = key
        elif lowered != "proxy-authorization":
            replaced[name] = value
    if not any(name.lower() in KEY_HEADERS for name in replaced) and "key" not in url.query:
        replaced["Authorization"] = f"Bearer {key}"
    if "key" not in url.query:
        return replaced, None
    return replaced, url.update_query(key=key).raw_path_qs


def passed_back(headers: Mapping[str, str]) -> dict[str, str]:
    """The upstream's response headers the client gets (multi-valued ones joined)."""
    result: dict[str, str] = {}
    for key, value in headers.items():
        if key.lower() in NOT_PASSED_BACK:
            continue
        result[key] = f"{result[key]}, {value}" if key in result else value
    return result
