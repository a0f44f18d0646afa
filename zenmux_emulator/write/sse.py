"""Write a streamed reply: prepare the response, pace the events, keep the connection alive.

Once `prepare()` has sent the headers nothing here may turn into an error response; a client
that goes away simply ends the stream, and the outcome is reported back for the journal.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from aiohttp import web

from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.write.plan import ReplyPlan
from zenmux_emulator.write.timeline import Timeline

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
    sent_at: Timeline = field(default_factory=Timeline)
    """`time.perf_counter()` as each event was written: the stream's timeline, for the journal."""

    def timeline(self) -> Timeline:
        """The timeline, handed over once the stream is done (to its journal entry): the outcome,
        which the generation record keeps for its waits, keeps none of it."""
        sent, self.sent_at = self.sent_at, Timeline()
        return sent


@dataclass(frozen=True, slots=True)
class Pace:
    """How a stream's scripted waits are played: the keep-alive interval (scripted seconds), the time
    scale the waits are multiplied by (0: none waited), and the scripted seconds already skipped
    before the stream (the provider's latency, a delay fault), which its timeline adds back."""

    keepalive_s: float
    scale: float = 1.0
    skipped: float = 0.0


async def pause(response: web.StreamResponse, seconds: float, pace: Pace) -> None:
    """Wait `seconds` of the schedule (each one `pace.scale` seconds of wall time), writing a keep-alive
    comment each time a full keep-alive interval of it passes: the same comments at any scale."""
    keepalive_s, scale = pace.keepalive_s, pace.scale
    while seconds > keepalive_s:
        if scale:
            await asyncio.sleep(keepalive_s * scale)
        await response.write(KEEPALIVE)
        seconds -= keepalive_s
    if seconds > 0 and scale:
        await asyncio.sleep(seconds * scale)


def scripted_delay(due: float, wait: float, elapsed: float, scale: float) -> float:
    """How many scripted seconds are left before an event due `due` seconds into the stream, `elapsed`
    wall seconds into it: at scale 0 (nothing waited) its own wait, for its keep-alives."""
    return due - elapsed / scale if scale else wait


async def write_paced(
    response: web.StreamResponse,
    plan: ReplyPlan,
    pace: Pace,
    outcome: StreamOutcome,
    holder: Waits,
) -> bool:
    """Write the events with their waits and the scripted fault; once the server is stopping, the
    rest go out at once. False when the stream must end without its closing bytes.

    The waits make a schedule counted from the start of the stream: an event sent late (a busy loop, a
    slow client) does not push back the ones after it, as an upstream's generation does not slow
    down for a busy gateway, so a stream lasts what its scenario says (times the time scale). Each
    event's time in the timeline is the scripted one: when it went, plus the waits the scale skipped.
    The waits `holder` says whether the server is stopping."""
    events = plan.events.marked() if plan.events is not None else iter(())
    waits = iter(plan.schedule) if plan.schedule is not None else None
    fault = plan.stream_fault
    hurry = False
    clock = asyncio.get_running_loop().time
    scale, skew = pace.scale, pace.skipped
    start = clock()
    due = 0.0  # scripted seconds from the start of the stream
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
        delay = scripted_delay(due, wait, clock() - start, scale)
        if delay > 0 and not hurry:
            try:
                if delay <= pace.keepalive_s:  # the usual case, without pause()'s extra coroutine per event
                    await asyncio.sleep(delay * scale)  # at scale 0 a mere yield
                else:
                    await pause(response, delay, pace)
            except asyncio.CancelledError:
                if not holder.stopping:
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                hurry = True
        await response.write(event)
        outcome.sent_at.add(time.perf_counter() + skew + due * (1 - scale))
        outcome.events_sent = i + 1
    return True


async def write_sse(
    request: web.Request, plan: ReplyPlan, pace: Pace, outcome: StreamOutcome, waits: Waits
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
            outcome.sent_at.add(time.perf_counter() + pace.skipped, len(events))
            outcome.events_sent = len(events)
        else:
            with waits.interruptible():
                complete = await write_paced(response, plan, pace, outcome, waits)
            if not complete:  # cut off: no [DONE], not even the end of the chunked body
                if request.transport is not None:
                    request.transport.close()
                return response
    except ConnectionResetError:
        outcome.client_gone = True
    return response
