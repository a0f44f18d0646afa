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

from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.errors import (
    INTERNAL,
    INVALID_PARAMS,
    ConnectionDropped,
    RequestRejected,
)
from zenmux_emulator.foundation.ids import request_id
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.journal.file import JournalFile
from zenmux_emulator.journal.journal import Journal
from zenmux_emulator.pipeline.keys import ENTRY
from zenmux_emulator.pipeline.shared import SHARED_SESSION
from zenmux_emulator.pipeline.signposts import main_app, not_found_message
from zenmux_emulator.pipeline.spec import REGISTERED, ErrorBody, FaceSpec, envelope_for
from zenmux_emulator.state.shared import SharedStore
from zenmux_emulator.write.json import error_response

log = logging.getLogger("emulator")
access_log = logging.getLogger("emulator.access")

CONTROL_PREFIX = "/_emulator/"
REQUEST_ID_HEADER = "X-ZenMux-RequestId"

_HTTP_TYPES = {404: "not_found", 405: "method_not_allowed", 413: INVALID_PARAMS, 415: INVALID_PARAMS}


def journal_middleware(
    journal: Journal, seed: int, clock: Clock, writer: JournalFile | None, shared: SharedStore | None = None
) -> Middleware:
    """The middleware of an app with these holders (bound once, not looked up per request). With
    a shared store the entry's number comes from it and the entry is kept there, not in `journal`."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        """Open a journal entry for the request and close it with the outcome (handing it to the
        `--journal` file when there is one); answer every error raised outside a face's endpoint
        with ZenMux's envelope (unexpected ones logged with their traceback, answered 500 without
        internals); end a dropped connection; log one access line. One middleware, not two: each
        layer costs every request a coroutine."""
        journal.received += 1
        path = request.path
        number = journal.received if shared is None else 0  # shared: numbered by the store
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
        if journaled and shared is None:
            journal.add(entry)  # visible at once; filled in as the request moves along
        entry.started = time.perf_counter()
        try:
            try:
                response = await handler(request)
            except ConnectionDropped:
                entry.dropped = True
                if shared is not None:
                    await _share(shared, request, entry, journaled, seed, None)
                return web.Response()  # aiohttp wants a response; the closed transport sends none of it
            except RequestRejected as exc:
                entry.error_type = exc.type
                response = error_response(exc.status, error_body(exc.status, exc.type, exc.message), exc.headers)
            except web.HTTPException as exc:
                if exc.status < 400:
                    raise
                entry.error_type = _HTTP_TYPES.get(exc.status, INVALID_PARAMS)
                message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
                if exc.status == 404 and isinstance(request.match_info, MatchInfoError):  # no route: say the nearest
                    message = not_found_message(request)
                allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
                envelope: ErrorBody = error_body
                if isinstance(request.match_info, MatchInfoError):  # the router's: the envelope of the face asked
                    faces: tuple[FaceSpec, ...] = main_app(request).get(REGISTERED, ())
                    envelope = envelope_for(faces, path) or error_body
                response = error_response(
                    exc.status, envelope(exc.status, entry.error_type, message or exc.reason), allow
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("unexpected error while answering request %s", entry.request_id)
                entry.error_type = INTERNAL
                response = error_response(
                    500,
                    error_body(
                        500, INTERNAL, f"The emulator failed unexpectedly; see its log for request {entry.request_id}"
                    ),
                )
            entry.status = response.status
            entry.sent_headers = response.headers
            if entry.response is None and response.status >= 400 and isinstance(response, web.Response):
                # the error envelope as sent, so the journal (and the client verdict) can read its message
                entry.response = response.body if isinstance(response.body, bytes) else None
            if shared is not None:
                response = await _share(shared, request, entry, journaled, seed, response)
            return response
        finally:
            entry.finished = time.perf_counter()
            if journaled:
                journal.settle(entry)
                if writer is not None:
                    writer.submit(entry)
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

    return middleware


async def _share(
    shared: SharedStore,
    request: web.Request,
    entry: JournalEntry,
    journaled: bool,
    seed: int,
    response: web.StreamResponse | None,
) -> web.StreamResponse:
    """Number the entry (unless the endpoint did), then write the session's changes and the entry to
    the shared store before the answer leaves; a store that fails turns the answer into a 500."""
    try:
        if not entry.seq:
            entry.seq = await shared.next_seq()
            entry.request_id = request_id(seed, entry.seq)
        if response is not None and not response.prepared:
            response.headers.setdefault(REQUEST_ID_HEADER, entry.request_id)
            response.headers.setdefault("x-request-id", entry.request_id)
        entry.finished = time.perf_counter()
        await shared.finish(request.get(SHARED_SESSION), entry.as_dict() if journaled else None)
    except RequestRejected as exc:  # the store's outage (warned of once, not per request)
        if response is None or response.prepared:
            raise
        entry.error_type = exc.type
        response = error_response(exc.status, error_body(exc.status, exc.type, exc.message))
        entry.status = response.status
    except Exception:
        log.exception("the shared state failed while finishing request %s", entry.request_id or "-")
        if response is None or response.prepared:
            raise
        entry.error_type = INTERNAL
        response = error_response(
            500, error_body(500, INTERNAL, "The emulator's shared state (--state) failed; see its log")
        )
        entry.status = response.status
    return response if response is not None else web.Response()


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: every response, streamed ones too, carries `X-ZenMux-RequestId`
    (and `x-request-id`, which ZenMux's other endpoints show and some clients read)."""
    entry = request.get(ENTRY)
    if entry is not None:
        entry.first_byte = time.perf_counter()
        response.headers.setdefault(REQUEST_ID_HEADER, entry.request_id)
        response.headers.setdefault("x-request-id", entry.request_id)
