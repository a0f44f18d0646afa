"""Write a streamed reply: prepare the response, pace the events, keep the connection alive.

Once `prepare()` has sent the headers nothing here may turn into an error response; a client
that goes away simply ends the stream, and the outcome is reported back for the journal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from emulator.keys import STATE
from emulator.render.plan import ReplyPlan

KEEPALIVE = b": ZENMUX PROCESSING\n\n"
SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}


@dataclass(slots=True)
class StreamOutcome:
    """How far a stream got: events written, and whether the client left first."""

    events_sent: int = 0
    client_gone: bool = False


async def pause(response: web.StreamResponse, seconds: float, keepalive_s: float) -> None:
    """Wait, writing a keep-alive comment each time a full keep-alive interval passes."""
    while seconds > keepalive_s:
        await asyncio.sleep(keepalive_s)
        await response.write(KEEPALIVE)
        seconds -= keepalive_s
    if seconds > 0:
        await asyncio.sleep(seconds)


async def write_paced(response: web.StreamResponse, plan: ReplyPlan, keepalive_s: float,
                      outcome: StreamOutcome, stopping: Callable[[], bool]) -> None:
    """Write the events with their waits; once the server is stopping, the rest go out at once."""
    events = plan.events or []
    hurry = False
    for i, event in enumerate(events):
        if i < plan.paced and not hurry:
            try:
                await pause(response, plan.first_wait_s if i == 0 else plan.gap_s, keepalive_s)
            except asyncio.CancelledError:
                if not stopping():
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                hurry = True
        await response.write(event)
        outcome.events_sent = i + 1


async def write_sse(request: web.Request, plan: ReplyPlan, keepalive_s: float, outcome: StreamOutcome) -> web.StreamResponse:
    """Send the planned events; waits come from the plan (first event, then between events)."""
    events = plan.events or []
    response = web.StreamResponse(status=plan.status, headers={**plan.headers, **SSE_HEADERS})
    await response.prepare(request)
    try:
        if plan.first_wait_s <= 0 and plan.gap_s <= 0:
            await response.write(b"".join(events))
            outcome.events_sent = len(events)
        else:
            state = request.app[STATE]
            task = asyncio.current_task()
            assert task is not None
            state.paced_streams.add(task)
            try:
                await write_paced(response, plan, keepalive_s, outcome, lambda: state.stopping)
            finally:
                state.paced_streams.discard(task)
        await response.write_eof()
    except ConnectionResetError:
        outcome.client_gone = True
    return response
