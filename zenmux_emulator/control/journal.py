"""`/_emulator/journal`: the requests received, filtered; the unmatched ones with their near misses."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.control.wire import count, flag, json_response, query
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.journal.safe_json import dumps
from zenmux_emulator.pipeline.keys import JOURNAL


def listing(entries: list[bytes], **extra: object) -> web.Response:
    """`{"count", "entries", ...}` from entries already written one by one (each cleaned if need be)."""
    head = orjson.dumps({"count": len(entries), **extra})[:-1]
    body = head + b',"entries":[' + b",".join(entries) + b"]}"
    return web.Response(body=body, content_type="application/json")


async def list_journal(request: web.Request) -> web.Response:
    """A page of entries, oldest first: `limit` keeps the newest N, `before`/`after` a `seq` cursor;
    `older` is the `before` of the next page back (null when nothing older matches)."""
    q = query(request, {"session", "rule", "path", "unmatched", "limit", "before", "after"})
    journal = request.config_dict[JOURNAL]
    limit = count(q, "limit")
    matched = journal.entries(session=q.get("session"), rule=q.get("rule"), path=q.get("path"),
                              unmatched=flag(q, "unmatched"), before=count(q, "before"), after=count(q, "after"))
    page = matched if limit is None else matched[max(len(matched) - limit, 0):]
    older = page[0].seq if page and len(page) < len(matched) else None
    return listing([dumps(e.as_dict()) for e in page], total=len(matched), older=older)


def unmatched_view(entry: JournalEntry) -> dict[str, Any]:
    """What a failing test needs to see: which request, what it asked, and which rules nearly matched."""
    body = entry.body if isinstance(entry.body, dict) else {}
    return {
        "seq": entry.seq, "request_id": entry.request_id, "time": entry.time, "session": entry.session,
        "model": body.get("model"), "stream": entry.stream, "status": entry.status, "error_type": entry.error_type,
        "near_misses": entry.near_misses, "body": entry.body,
    }


async def list_unmatched(request: web.Request) -> web.Response:
    q = query(request, {"session", "limit"})
    entries = request.config_dict[JOURNAL].entries(session=q.get("session"), unmatched=True, limit=count(q, "limit"))
    return listing([dumps(unmatched_view(e)) for e in entries])


async def clear_journal(request: web.Request) -> web.Response:
    q = query(request, {"session"})
    journal = request.config_dict[JOURNAL]
    before = len(journal)
    journal.clear(q.get("session"))
    return json_response({"cleared": before - len(journal)})
