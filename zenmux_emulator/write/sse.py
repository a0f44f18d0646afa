"""Write a streamed reply: prepare the response, pace the events, keep the connection alive.

Once `prepare()` has sent the headers nothing here may turn into an error response; a client
that goes away simply ends the stream, and the outcome is reported back for the journal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.write.plan import ReplyPlan

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
    fault: str | None = None
    paced: int = 0
    """Paced events written (or about to be)."""
    waited: float = 0.0
    """The scripted waits of the paced events after the first (and a stall): the generation time."""
    sent_at: list[float] = field(default_factory=list)
    """`time.perf_counter()` as each event was written: the stream's timeline, for the journal."""


async def pause(response: web.StreamResponse, seconds: float, keepalive_s: float) -> None:
    """Wait, writing a keep-alive comment each time a full keep-alive interval passes."""
    while seconds > keepalive_s:
        await asyncio.sleep(keepalive_s)
        await response.write(KEEPALIVE)
        seconds -= keepalive_s
    if seconds > 0:
        await asyncio.sleep(seconds)


async def write_paced(
    response: web.StreamResponse,
    plan: ReplyPlan,
    keepalive_s: float,
    outcome: StreamOutcome,
    stopping: Callable[[], bool],
) -> bool:
    """Write the events with their waits and the scripted fault; once the server is stopping, the
    rest go out at once. False when the stream must end without its closing bytes.

    The waits make a schedule counted from the start of the stream: an event sent late (a busy loop, a
    slow client) does not push back the ones after it, as an upstream's generation does not slow
    down for a busy gateway, so a stream lasts what its scenario says."""
    events = plan.events.marked() if plan.events is not None else iter(())
    waits = iter(plan.schedule) if plan.schedule is not None else None
    fault = plan.stream_fault
    hurry = False
    clock = asyncio.get_running_loop().time
    due = clock()
    for i, (event, paced) in enumerate(events):  # each event made just before it is due
        wait = next(waits) if paced and waits is not None else 0.0
        if fault is not None and i == plan.fault_at:
            outcome.fault = fault.kind
            if fault.kind == "disconnect":
                return False
            if fault.kind == "error":  # the failure event, then the stream ends: no [DONE]
                await response.write(plan.fault_event)
                return True
            if fault.kind == "malformed":
                await response.write(plan.fault_event)
            else:  # stall
                wait += fault.stall_ms / 1000
        if paced and waits is not None:
            if outcome.paced:
                outcome.waited += wait
            outcome.paced += 1
        due += wait
        delay = due - clock()
        if delay > 0 and not hurry:
            try:
                if delay <= keepalive_s:  # the usual case, without pause()'s extra coroutine per event
                    await asyncio.sleep(delay)
                else:
                    await pause(response, delay, keepalive_s)
            except asyncio.CancelledError:
                if not stopping():
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                hurry = True
        await response.write(event)
        outcome.sent_at.append(time.perf_counter())
        outcome.events_sent = i + 1
    return True


async def write_sse(
    request: web.Request, plan: ReplyPlan, keepalive_s: float, outcome: StreamOutcome, waits: Waits
) -> web.StreamResponse:
    """Send the planned events; waits come from the plan (first event, then between events). The
    end of the chunked body is not written here: aiohttp writes it once the handler and the
    middleware are done, so the journal entry, in a shared state too, is whole before the client
    sees the stream end."""
    response = web.StreamResponse(status=plan.status, headers={**plan.headers, **SSE_HEADERS})
    await response.prepare(request)
    try:
        if plan.schedule is None and plan.stream_fault is None:  # nothing waits: one write
            events = list(plan.events or ())
            await response.write(b"".join(events))
            outcome.sent_at.extend([time.perf_counter()] * len(events))
            outcome.events_sent = len(events)
        else:
            with waits.interruptible():
                complete = await write_paced(response, plan, keepalive_s, outcome, lambda: waits.stopping)
            if not complete:  # cut off: no [DONE], not even the end of the chunked body
                if request.transport is not None:
                    request.transport.close()
                return response
    except ConnectionResetError:
        outcome.client_gone = True
    return response
