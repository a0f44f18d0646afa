"""Cross-cutting concerns: the journal entry and access log of every request, the error envelope
of every failure raised outside a face's endpoint (unknown paths, the models list, aiohttp's own
HTTP errors), and the end of a dropped connection."""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from aiohttp.web_urldispatcher import MatchInfoError

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.file import JournalFile
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.keys import ENTRY
from zenmux_emulator.core.spec import REGISTERED, ErrorBody, FaceSpec, envelope_for
from zenmux_emulator.core.state import EdgeState
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import (
    INTERNAL,
    INVALID_PARAMS,
    ConnectionDropped,
    RequestRejected,
)
from zenmux_emulator.foundation.ids import request_id
from zenmux_emulator.server.edge.signposts import main_app, not_found_message
from zenmux_emulator.write.json import error_response

log = logging.getLogger("emulator")
access_log = logging.getLogger("emulator.access")

CONTROL_PREFIX = "/_emulator/"
REQUEST_ID_HEADER = "X-ZenMux-RequestId"

_HTTP_TYPES = {404: "not_found", 405: "method_not_allowed", 413: INVALID_PARAMS, 415: INVALID_PARAMS}


def journal_middleware(
    journal: Journal, seed: int, clock: Clock, writer: JournalFile | None, state: EdgeState
) -> Middleware:
    """The middleware of an app with these holders (bound once, not looked up per request): the
    state numbers and keeps the entry (in process: `journal` keeps it; shared: the store does)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        """Open a journal entry for the request and close it with the outcome (handing it to the
        `--journal` file when there is one); answer every error raised outside a face's endpoint
        with ZenMux's envelope; end a dropped connection; log one access line. One middleware, not
        two: each layer costs every request a coroutine."""
        journal.received += 1
        path = request.path
        number = state.number(journal.received)
        entry = JournalEntry(
            number,
            request_id(seed, number) if number else "",
            clock.now(),
            request.method,
            path,
            request.headers,
            time.time(),
        )
        request[ENTRY] = entry
        journaled = not path.startswith(CONTROL_PREFIX)
        if journaled:
            state.arrived(entry)
        entry.started = time.perf_counter()
        try:
            try:
                response = await handler(request)
            except ConnectionDropped:
                entry.dropped = True
                await state.dropped(request, entry, journaled)
                return web.Response()  # aiohttp wants a response; the closed transport sends none of it
            except RequestRejected as exc:
                entry.error_type = exc.type
                response = error_response(exc.status, error_body(exc.status, exc.type, exc.message), exc.headers)
            except web.HTTPException as exc:
                if exc.status < 400:
                    raise
                response = http_error(request, entry, exc)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001  # a bug of ours: logged by unexpected, answered 500
                response = unexpected(entry)
            entry.status = response.status
            entry.sent_headers = response.headers
            if entry.response is None and response.status >= 400 and isinstance(response, web.Response):
                # the error envelope as sent, so the journal (and the client verdict) can read its message
                entry.response = response.body if isinstance(response.body, bytes) else None
            return await state.finish(request, entry, journaled, response)
        finally:
            entry.finished = time.perf_counter()
            if journaled:
                journal.settle(entry)
                if writer is not None:
                    writer.submit(entry)
            log_access(entry)

    return middleware


def unexpected(entry: JournalEntry) -> web.Response:
    """An unexpected failure: logged with its traceback (call it while handling it), answered 500
    without internals."""
    log.exception("unexpected error while answering request %s", entry.request_id)
    entry.error_type = INTERNAL
    message = f"The emulator failed unexpectedly; see its log for request {entry.request_id}"
    return error_response(500, error_body(500, INTERNAL, message))


def http_error(request: web.Request, entry: JournalEntry, exc: web.HTTPException) -> web.Response:
    """aiohttp's own HTTP error in ZenMux's envelope (an unknown path: the face's, naming the nearest)."""
    entry.error_type = _HTTP_TYPES.get(exc.status, INVALID_PARAMS)
    message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
    allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
    envelope: ErrorBody = error_body
    if isinstance(request.match_info, MatchInfoError):  # no route: say the nearest, in the face's envelope
        if exc.status == 404:
            message = not_found_message(request)
        faces: tuple[FaceSpec, ...] = main_app(request).get(REGISTERED, ())
        envelope = envelope_for(faces, request.path) or error_body
    return error_response(exc.status, envelope(exc.status, entry.error_type, message or exc.reason), allow)


def log_access(entry: JournalEntry) -> None:
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s %.1fms rule=%s session=%s",
            entry.method,
            entry.path,
            entry.status,
            entry.duration_ms,
            entry.rule or "-",
            entry.session or "-",
            extra={
                "request_id": entry.request_id,
                "status": entry.status,
                "rule": entry.rule,
                "session": entry.session,
                "duration_ms": entry.duration_ms,
            },
        )


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: every response, streamed ones too, carries `X-ZenMux-RequestId`
    (and `x-request-id`, which ZenMux's other endpoints show and some clients read)."""
    entry = request.get(ENTRY)
    if entry is not None:
        entry.first_byte = time.perf_counter()
        response.headers.setdefault(REQUEST_ID_HEADER, entry.request_id)
        response.headers.setdefault("x-request-id", entry.request_id)
