"""The inspector's sub-app, mounted under the control API (`/_emulator/ui/`), so the control API's
guard lets the same callers in: the page and its assets, read from the package, and the live list
(`events`, Server-Sent Events). Everything else the page shows it reads from the control API.

The live feed (`feed.py`), the media finder (`media.py`) and the face routes' reader are imported by
the handlers that use them, on the page's first requests: a server nobody inspects never loads them
(issue 43)."""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import TYPE_CHECKING

from aiohttp import web

from zenmux_emulator.core.keys import JOURNAL, STATE, WAITS
from zenmux_emulator.core.spec import REGISTERED
from zenmux_emulator.core.state import JournalQuery
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.server.control.guard import TOKEN_COOKIE
from zenmux_emulator.server.control.wire import count, json_response, query

if TYPE_CHECKING:
    from zenmux_emulator.server.inspector.feed import Listener, LiveFeed, Sent
    from zenmux_emulator.server.inspector.media import Piece

PAGE = "index.html"
ASSETS = {"inspector.js": "text/javascript", "inspector.css": "text/css", PAGE: "text/html"}
"""The files the page is made of, in `server/inspector/static/`: the only ones served."""

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "media-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page may load and call its own origin only: the browser itself refuses anything else."""
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

KEEPALIVE_S = 15.0
GONE_CHECK_S = 1.0
"""How often an idle live list checks its page is still there (aiohttp does not cancel a handler whose
client left), so a closed tab gives its place back within a second."""
STREAM_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}

FILES: web.AppKey[dict[str, bytes]] = web.AppKey("inspector_files")
FEED: web.AppKey[Feeds] = web.AppKey("inspector_feed")


class Feeds:
    """The process's one live feed, made when the first live list opens (it reads the root app's state)."""

    def __init__(self) -> None:
        self.feed: LiveFeed | None = None

    def get(self, request: web.Request) -> LiveFeed:
        if self.feed is None:
            from zenmux_emulator.server.inspector.feed import LiveFeed

            self.feed = LiveFeed(request.config_dict[STATE], request.config_dict[JOURNAL])
        return self.feed

    async def close(self, app: web.Application) -> None:
        if self.feed is not None:
            await self.feed.close()


def read_files() -> dict[str, bytes]:
    folder = resources.files("zenmux_emulator.server.inspector") / "static"
    return {name: (folder / name).read_bytes() for name in ASSETS}


async def page(request: web.Request) -> web.Response:
    """The page; opened as `?token=…` under --admin-token (the guard checked it), the token is kept
    in a cookie the browser sends to the control API only, from this origin only."""
    token = query(request, {"token"}).get("token")
    response = web.Response(body=request.app[FILES][PAGE], content_type=ASSETS[PAGE], charset="utf-8", headers=HEADERS)
    if token:
        response.set_cookie(TOKEN_COOKIE, token, path="/_emulator/", httponly=True, samesite="Strict")
    return response


async def asset(request: web.Request) -> web.Response:
    query(request, ())
    name = request.match_info["name"]
    if name not in ASSETS or name == PAGE:
        raise RequestRejected(404, "not_found", f"The inspector has no file {name!r}")
    return web.Response(body=request.app[FILES][name], content_type=ASSETS[name], charset="utf-8", headers=HEADERS)


async def events(request: web.Request) -> web.StreamResponse:
    """The live list: one `row` event per finished journal entry, those already there first, then
    each new one as it finishes (with --workers and --state, whichever worker answered it), from the
    process's one feed (`feed.py`). The page keeps rows by `seq`, so an entry sent twice is shown once."""
    after = count(query(request, {"after"}), "after") or 0
    feed = request.app[FEED].get(request)
    listener = feed.join(after)  # before the backlog is read: nothing finishes unseen in between
    try:
        response = web.StreamResponse(headers=STREAM_HEADERS)
        await response.prepare(request)
        await stream(request, response, listener)
    finally:
        feed.leave(listener)
    return response


async def stream(request: web.Request, response: web.StreamResponse, listener: Listener) -> None:
    """The backlog, then what the feed offers, until the page goes away or the server stops."""
    from zenmux_emulator.server.inspector.feed import Sent, encoded

    waits = request.config_dict[WAITS]
    backlog = await request.config_dict[STATE].recent(None)
    first = [(entry.seq, encoded(entry)) for entry in backlog if entry.seq > listener.after]
    sent = Sent()
    try:
        await send(response, first, sent)
        quiet = 0.0
        while not waits.stopping and not listener.overrun and not gone(request):
            with waits.interruptible():
                try:
                    await asyncio.wait_for(listener.ready.wait(), GONE_CHECK_S)
                except TimeoutError:
                    quiet += GONE_CHECK_S
                    if quiet >= KEEPALIVE_S:
                        await response.write(b": keep-alive\n\n")
                        quiet = 0.0
                    continue
            quiet = 0.0
            await send(response, listener.take(), sent)
    except asyncio.CancelledError:
        if not waits.stopping:
            raise
        asyncio.current_task().uncancel()  # type: ignore[union-attr]
    except ConnectionResetError:
        pass  # the page went away


def gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def send(response: web.StreamResponse, rows: list[tuple[int, bytes]], sent: Sent) -> None:
    """The rows not sent yet, in one write."""
    written = [data for seq, data in rows if sent.first(seq, data)]
    if written:
        await response.write(b"".join(written))


async def faces(request: web.Request) -> web.Response:
    """The registered faces (the face registry), each with the POST paths its endpoint serves and
    whether rules answer it: the page's face filter, the "would this match?" box's paths and "make a rule"."""
    from zenmux_emulator.core.explain import face_routes

    query(request, ())
    root = request.match_info.apps[0] if request.match_info.apps else request.app
    paths: dict[str, list[str]] = {}
    for endpoint, path, _ in face_routes(root):
        paths.setdefault(endpoint.face.name, []).append(path)
    listed = [
        {
            "name": face.name,
            "api_name": face.api_name,
            "base_path": face.base_path,
            "paths": paths.get(face.name, []),
            "rules": face.traits.scripted,  # whether scenario rules answer it ("make a rule" needs them)
        }
        for face in root[REGISTERED]
    ]
    return json_response(listed)


async def _pieces(request: web.Request) -> list[Piece]:
    """The pieces of the entry `seq` names (404 when the journal no longer holds it)."""
    from zenmux_emulator.server.inspector.media import pieces

    seq = request.match_info["seq"]
    if not seq.isdigit():
        raise RequestRejected(400, "invalid_params", "Parameter seq is not valid: expected a request's number")
    wanted = int(seq)
    rows = await request.config_dict[STATE].journal(JournalQuery(before=wanted + 1, after=wanted - 1))
    found = next((row for row in rows if row.seq == wanted), None)
    if found is None:
        raise RequestRejected(404, "not_found", f"Request #{wanted} is no longer in the journal")
    kept = getattr(found, "response", None)  # an entry of this process holds its body's bytes
    raw = kept if isinstance(kept, bytes) else None
    # decoding ten 4K pictures' base64 takes tens of milliseconds: not on the loop
    return await asyncio.to_thread(lambda: pieces(found.as_dict(), raw))


async def media_list(request: web.Request) -> web.Response:
    """The pictures, sounds and videos of one entry's reply, for the page's media view."""
    query(request, ())
    found = await _pieces(request)
    return json_response({"seq": int(request.match_info["seq"]), "media": [p.listed(i) for i, p in enumerate(found)]})


async def media_piece(request: web.Request) -> web.Response:
    """One of them, as its bytes (an image's `<img>`, a sound's `<audio>`)."""
    query(request, ())
    found = await _pieces(request)
    index = request.match_info["index"]
    if not index.isdigit() or int(index) >= len(found):
        raise RequestRejected(404, "not_found", f"Request #{request.match_info['seq']} has no media {index}")
    piece = found[int(index)]
    headers = {**HEADERS, "Content-Type": piece.content_type, "Content-Disposition": "inline"}
    return web.Response(body=piece.data, headers=headers)


def create_inspector_app() -> web.Application:
    """The page's sub-app; the control API mounts it at `/ui/` (its guard applies)."""
    app = web.Application()
    app[FILES] = read_files()
    app[FEED] = Feeds()
    app.on_shutdown.append(app[FEED].close)
    app.add_routes(
        [
            web.get("/", page),
            web.get("/events", events),
            web.get("/faces", faces),
            web.get("/media/{seq}", media_list),
            web.get("/media/{seq}/{index}", media_piece),
            web.get("/{name}", asset),
        ]
    )
    return app
