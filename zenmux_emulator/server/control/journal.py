"""`/_emulator/journal`: the requests received, filtered; the unmatched ones with their near misses."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.safe_json import dumps
from zenmux_emulator.core.journal.verdict import verdict
from zenmux_emulator.core.keys import STATE
from zenmux_emulator.core.spec import REGISTERED, readers_of
from zenmux_emulator.core.state import JournalQuery, Row
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.server.control.wire import count, flag, json_response, query


def listing(entries: list[bytes], **extra: object) -> web.Response:
    """`{"count", "entries", ...}` from entries already written one by one (each cleaned if need be)."""
    head = orjson.dumps({"count": len(entries), **extra})[:-1]
    body = head + b',"entries":[' + b",".join(entries) + b"]}"
    return web.Response(body=body, content_type="application/json")


async def list_journal(request: web.Request) -> web.Response:
    """A page of entries, oldest first: `limit` keeps the newest N, `before`/`after` a `seq` cursor;
    `older` is the `before` of the next page back (null when nothing older matches)."""
    q = query(request, {"session", "rule", "path", "unmatched", "limit", "before", "after"})
    limit = count(q, "limit")
    wanted = JournalQuery(
        session=q.get("session"),
        rule=q.get("rule"),
        path=q.get("path"),
        unmatched=flag(q, "unmatched"),
        before=count(q, "before"),
        after=count(q, "after"),
    )
    matched = await request.config_dict[STATE].journal(wanted)
    page = newest(matched, limit)
    written, left_out = within(page, PAGE_BYTES)
    older = page[left_out].seq if written and len(written) < len(matched) else None
    return listing(written, total=len(matched), older=older)


PAGE_BYTES = 4 * 1024 * 1024
"""The most JSON of entries one page carries (but always one entry): the rest are the pages before
it, which `older` leads to. The whole journal (32 MiB) in one answer held the event loop 180 to 540 ms."""


def newest(rows: list[Row], limit: int | None) -> list[Row]:
    return rows if limit is None else rows[max(len(rows) - limit, 0) :]


def within(rows: list[Row], size: int) -> tuple[list[bytes], int]:
    """The newest of `rows` whose JSON fits in `size` bytes (at least one), oldest first, and how
    many older rows were left out."""
    written: list[bytes] = []
    total = 0
    for row in reversed(rows):
        blob = dumps(row.as_dict())
        if written and total + len(blob) > size:
            break
        written.append(blob)
        total += len(blob)
    written.reverse()
    return written, len(rows) - len(written)


UNMATCHED_FIELDS = ("seq", "request_id", "time", "session", "stream", "status", "error_type", "near_misses", "body")


def unmatched_view(entry: Row) -> dict[str, Any]:
    """What a failing test needs to see: which request, what it asked, and which rules nearly matched."""
    view = {name: getattr(entry, name) for name in UNMATCHED_FIELDS}
    body = view["body"] if isinstance(view["body"], dict) else {}
    view["model"] = body.get("model")
    return view


async def list_unmatched(request: web.Request) -> web.Response:
    q = query(request, {"session", "limit"})
    found = await request.config_dict[STATE].journal(JournalQuery(session=q.get("session"), unmatched=True))
    return listing([dumps(unmatched_view(e)) for e in newest(found, count(q, "limit"))])


async def clear_journal(request: web.Request) -> web.Response:
    q = query(request, {"session"})
    return json_response({"cleared": await request.config_dict[STATE].clear_journal(q.get("session"))})


async def journal_verdict(request: web.Request) -> web.Response:
    """`verdict()` over one session's journal (live entries, or the shared store's read as live ones)."""
    session = query(request, {"session"}).get("session")
    if not session:
        raise invalid_params("session is required: the session whose requests are judged")
    rows = await request.config_dict[STATE].journal(JournalQuery(session=session))
    entries: list[JournalEntry] = rows  # type: ignore[assignment]  # a stored row reads as a live entry does
    root = request.match_info.apps[0] if request.match_info.apps else request.app
    faces = root[REGISTERED]
    findings = verdict(entries, readers_of(faces))
    return json_response(
        {"session": session, "findings": [{"check": f.check, "seq": f.seq, "message": f.message} for f in findings]}
    )
