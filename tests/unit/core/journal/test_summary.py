"""core/journal/summary.py: a finished entry keeps its JSON response at the response's own size."""

from __future__ import annotations

import tracemalloc

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.summary import summarise

BODY = {"id": "gen-1", "object": "chat.completion", "choices": [{"message": {"content": "word " * 60}}]}


def test_a_kept_json_response_holds_its_own_size() -> None:
    """orjson's output holds 4 KiB and more whatever its length; the journal keeps a thousand
    responses, most of a few hundred bytes."""
    entry = JournalEntry(1, "req-1", 0.0, "POST", "/api/v1/chat/completions", {})
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        entry.response = orjson.dumps(BODY)  # as the endpoint hands it over
        summarise(entry, 256 << 10)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert entry.response == orjson.dumps(BODY)
    assert kept <= len(entry.response) + 128
    assert entry.kept_bytes == len(entry.response)
