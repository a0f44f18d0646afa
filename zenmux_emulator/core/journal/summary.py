"""Large bodies in the journal: past a limit, a request body or a response is kept as its size and
hash (xxh3-128, fast enough for the event loop at tens of MB), never whole."""

from __future__ import annotations

from typing import Any

import orjson
import xxhash

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.foundation.trim import trimmed


def summary(what: str, raw: bytes | list[bytes], limit: int) -> dict[str, Any]:
    """`{"summary", "bytes", "xxh3_128"}` of a body (or of a stream's events, joined) not kept."""
    data = raw if isinstance(raw, bytes) else b"".join(raw)
    return {
        "summary": f"{what} of {len(data)} bytes, not kept: over the journal's limit of {limit} bytes",
        "bytes": len(data),
        "xxh3_128": xxhash.xxh3_128_hexdigest(data),
    }


def body_summary(raw: bytes, limit: int) -> dict[str, Any]:
    """What the journal keeps of a request body past `limit` (made where the raw bytes are at hand)."""
    return summary("request body", raw, limit)


def summarise(entry: JournalEntry, limit: int) -> None:
    """Cut a finished entry's response down to a summary past `limit`, and count what it keeps: a
    JSON body at its own size (orjson's output holds 4 KiB and more, foundation/trim.py)."""
    response = entry.response
    if isinstance(response, list) and entry.events_sent is not None and entry.events_sent < len(response):
        response = entry.response = response[: entry.events_sent]  # the events a cut stream never sent go
    if response is None or not isinstance(response, (bytes, list)):
        sent = 0  # a stream made again when read holds its plan, not its bytes: nothing to count or cut
    else:
        sent = len(response) if isinstance(response, bytes) else sum(map(len, response))
    if sent > limit and isinstance(response, (bytes, list)):
        what = "response" if isinstance(response, bytes) else "stream"
        entry.response = trimmed(orjson.dumps(summary(what, response, limit)))
        sent = len(entry.response)
    elif isinstance(response, bytes):
        entry.response = trimmed(response)
    entry.kept_bytes = entry.body_bytes + sent
