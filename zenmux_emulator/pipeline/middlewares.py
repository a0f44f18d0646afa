"""Cross-cutting concerns: the journal entry and access log of every request, and ZenMux's
error envelope for every failure raised before a response started."""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.pipeline.keys import ENTRY, STATE
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.ids import request_id

log = logging.getLogger("emulator")
access_log = logging.getLogger("emulator.access")

CONTROL_PREFIX = "/_emulator/"
REQUEST_ID_HEADER = "X-ZenMux-RequestId"

_HTTP_TYPES = {404: "not_found", 405: "method_not_allowed", 413: "invalid_params", 415: "invalid_params"}


@web.middleware
async def journal_middleware(request: web.Request, handler: web.Handler) -> web.StreamResponse:
    """Open a journal entry for the request, close it with the outcome (and hand it to the
    `--journal` file when there is one), log one access line."""
    state = request.app[STATE]
    state.received += 1
    entry = JournalEntry(
        seq=state.received,
        request_id=request_id(state.settings.seed, state.received),
        time=state.clock.now(),
        method=request.method,
        path=request.path,
        received_headers=request.headers,
        arrived=time.time(),
    )
    request[ENTRY] = entry
    journaled = not request.path.startswith(CONTROL_PREFIX)
    if journaled:
        state.journal.add(entry)  # visible at once; filled in as the request moves along
    started = time.perf_counter()
    try:
        response = await handler(request)
        entry.status = None if entry.dropped else response.status
        entry.sent_headers = response.headers
        return response
    finally:
        entry.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        if journaled and state.journal_file is not None:
            state.journal_file.submit(entry)
        if access_log.isEnabledFor(logging.INFO):
            access_log.info(
                "%s %s %s %.1fms rule=%s session=%s", entry.method, entry.path, entry.status, entry.duration_ms,
                entry.rule or "-", entry.session or "-",
                extra={"request_id": entry.request_id, "status": entry.status, "rule": entry.rule,
                       "session": entry.session, "duration_ms": entry.duration_ms},
            )


def error_response(status: int, type: str, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=error_body(status, type, message), headers=headers,
                        content_type="application/json")


@web.middleware
async def envelope_middleware(request: web.Request, handler: web.Handler) -> web.StreamResponse:
    """Answer every error with `{"error": {"code", "type", "message"}}`; unexpected ones are
    logged with their traceback and answered 500 without internals."""
    entry = request[ENTRY]
    try:
        return await handler(request)
    except RequestRejected as exc:
        entry.error_type = exc.type
        return error_response(exc.status, exc.type, exc.message, exc.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        entry.error_type = _HTTP_TYPES.get(exc.status, "invalid_params")
        message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
        return error_response(exc.status, entry.error_type, message or exc.reason)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unexpected error while answering request %s", entry.request_id)
        entry.error_type = "internal_server_error"
        return error_response(500, "internal_server_error",
                              f"The emulator failed unexpectedly; see its log for request {entry.request_id}")


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: every response, streamed ones too, carries `X-ZenMux-RequestId`
    (and `x-request-id`, which ZenMux's other endpoints show and some clients read)."""
    entry = request.get(ENTRY)
    if entry is not None:
        response.headers.setdefault(REQUEST_ID_HEADER, entry.request_id)
        response.headers.setdefault("x-request-id", entry.request_id)
