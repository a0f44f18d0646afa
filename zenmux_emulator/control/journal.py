"""`/_emulator/journal`: the requests received, filtered; the unmatched ones with their near misses."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.control.shared import journal_entries, shared_of
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
    limit, before, after = count(q, "limit"), count(q, "before"), count(q, "after")
    shared = shared_of(request)
    if shared is not None:
        stored = await journal_entries(
            shared,
            session=q.get("session"),
            rule=q.get("rule"),
            path=q.get("path"),
            only_unmatched=flag(q, "unmatched"),
            limit=None,
        )
        found = [e for e in stored if (before is None or e["seq"] < before) and (after is None or e["seq"] > after)]
        shown = found if limit is None else found[max(len(found) - limit, 0) :]
        oldest = shown[0]["seq"] if shown and len(shown) < len(found) else None
        return listing([dumps(e) for e in shown], total=len(found), older=oldest)
    matched = request.config_dict[JOURNAL].entries(
        session=q.get("session"),
        rule=q.get("rule"),
        path=q.get("path"),
        unmatched=flag(q, "unmatched"),
        before=before,
        after=after,
    )
    page = matched if limit is None else matched[max(len(matched) - limit, 0) :]
    older = page[0].seq if page and len(page) < len(matched) else None
    return listing([dumps(e.as_dict()) for e in page], total=len(matched), older=older)


UNMATCHED_FIELDS = ("seq", "request_id", "time", "session", "stream", "status", "error_type", "near_misses", "body")


def unmatched_view(entry: JournalEntry | dict[str, Any]) -> dict[str, Any]:
    """What a failing test needs to see: which request, what it asked, and which rules nearly matched
    (from an entry, or from one the shared state stored)."""
    fields = entry if isinstance(entry, dict) else {name: getattr(entry, name) for name in UNMATCHED_FIELDS}
    body = fields["body"] if isinstance(fields["body"], dict) else {}
    view = {name: fields[name] for name in UNMATCHED_FIELDS}
    view["model"] = body.get("model")
    return view


async def list_unmatched(request: web.Request) -> web.Response:
    q = query(request, {"session", "limit"})
    shared = shared_of(request)
    if shared is not None:
        stored = await journal_entries(shared, session=q.get("session"), only_unmatched=True, limit=count(q, "limit"))
        return json_response({"count": len(stored), "entries": [unmatched_view(e) for e in stored]})
    entries = request.config_dict[JOURNAL].entries(session=q.get("session"), unmatched=True, limit=count(q, "limit"))
    return listing([dumps(unmatched_view(e)) for e in entries])


async def clear_journal(request: web.Request) -> web.Response:
    q = query(request, {"session"})
    shared = shared_of(request)
    if shared is not None:
        return json_response({"cleared": await shared.clear_journal(q.get("session"))})
    journal = request.config_dict[JOURNAL]
    before = len(journal)
    journal.clear(q.get("session"))
    return json_response({"cleared": before - len(journal)})
