"""A scripted failure instead of a completion: a transport fault, an error envelope or raw bytes.
Each uses up its place in the rule's reply sequence, like any reply."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.match.select import Selection
from zenmux_emulator.foundation.envelope import scripted_error
from zenmux_emulator.faces.chat.reply import raw_plan
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.pipeline.state import EmulatorState
from zenmux_emulator.write.faults import before_response
from zenmux_emulator.write.json import json_response


async def scripted_failure(request: web.Request, state: EmulatorState, entry: JournalEntry,
                           selection: Selection | None, session: Session) -> web.StreamResponse | None:
    """The response for a scripted failure (raising the error envelope), or None when the reply is
    a completion (after a scripted delay, if any)."""
    spec = selection.reply.spec if selection is not None and selection.reply is not None else None
    if selection is None or spec is None:
        return None
    if spec.fault is not None:
        entry.fault = spec.fault.kind
        with state.interruptible():
            gone = await before_response(request, spec.fault)
        if gone:
            selection.commit(session)
            entry.dropped = True
            return web.Response()  # never sent: the connection is gone
    if spec.error is not None:
        selection.commit(session)
        raise scripted_error(spec.error.status, spec.error.type, spec.error.message, spec.error.headers)
    if spec.raw is not None:
        selection.commit(session)
        plan = raw_plan(spec.raw)
        entry.response = plan.body
        return json_response(plan)
    return None
