"""The inspector's sub-app, mounted under the control API (`/_emulator/ui/`), so the control API's
guard lets the same callers in: the page and its assets, read from the package, and the live list
(`events`, Server-Sent Events). Everything else the page shows it reads from the control API."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from importlib import resources

import orjson
from aiohttp import web

from zenmux_emulator.core.explain import face_routes
from zenmux_emulator.core.keys import STATE, WAITS
from zenmux_emulator.core.spec import REGISTERED
from zenmux_emulator.core.state import Row
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.server.control.guard import TOKEN_COOKIE
from zenmux_emulator.server.control.wire import count, json_response, query
from zenmux_emulator.server.inspector.rows import row

PAGE = "index.html"
ASSETS = {"inspector.js": "text/javascript", "inspector.css": "text/css", PAGE: "text/html"}
"""The files the page is made of, in `server/inspector/static/`: the only ones served."""

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page may load and call its own origin only: the browser itself refuses anything else."""
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

POLL_S = 0.25
"""How often the live list looks for new journal entries (the shared store's journal is polled too)."""
KEEPALIVE_S = 15.0
RECENT = 100
"""Under --state, the entries that finished last the live list reads on each look after the first."""
SENT_KEPT = 20_000
"""The `seq`s a live list remembers having sent, at most (then it keeps the newest half)."""
STREAM_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}

FILES: web.AppKey[dict[str, bytes]] = web.AppKey("inspector_files")


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


async def finished_entries(request: web.Request, first: bool) -> Iterable[Row]:
    """The finished entries the journal holds, in arrival order: all of them (the first look), or
    under --state only the `RECENT` that finished last (the store's journal may be large)."""
    return await request.config_dict[STATE].recent(None if first else RECENT)


async def events(request: web.Request) -> web.StreamResponse:
    """The live list: one `row` event per finished journal entry, those already there first, then
    each new one as it finishes (with --workers and --state, whichever worker answered it). The
    page keeps rows by `seq`, so an entry sent twice is shown once."""
    after = count(query(request, {"after"}), "after") or 0
    response = web.StreamResponse(headers=STREAM_HEADERS)
    await response.prepare(request)
    waits = request.config_dict[WAITS]
    sent: set[int] = set()
    quiet, first = 0.0, True
    try:
        while not waits.stopping:
            written, fresh = [], 0
            for entry in await finished_entries(request, first):
                seq = entry.seq
                if seq > after and seq not in sent:
                    sent.add(seq)
                    fresh += 1
                    written.append(b"event: row\ndata: " + orjson.dumps(row(entry.as_dict())) + b"\n\n")
            # every one of the store's newest was new: more may have finished in between, so look at all next time
            first = fresh >= RECENT
            if len(sent) > SENT_KEPT:  # forget the oldest: one the journal still holds may be sent again
                sent = set(sorted(sent)[-SENT_KEPT // 2 :])
            if written:
                await response.write(b"".join(written))
                quiet = 0.0
            elif quiet >= KEEPALIVE_S:
                await response.write(b": keep-alive\n\n")
                quiet = 0.0
            with waits.interruptible():
                await asyncio.sleep(POLL_S)
            quiet += POLL_S
    except asyncio.CancelledError:
        if not waits.stopping:
            raise
        asyncio.current_task().uncancel()  # type: ignore[union-attr]
    except ConnectionResetError:
        pass  # the page went away
    return response


async def faces(request: web.Request) -> web.Response:
    """The registered faces (the face registry), each with the POST paths its endpoint serves and
    whether rules answer it: the page's face filter, the "would this match?" box's paths and "make a rule"."""
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


def create_inspector_app() -> web.Application:
    """The page's sub-app; the control API mounts it at `/ui/` (its guard applies)."""
    app = web.Application()
    app[FILES] = read_files()
    app.add_routes(
        [
            web.get("/", page),
            web.get("/events", events),
            web.get("/faces", faces),
            web.get("/{name}", asset),
        ]
    )
    return app
