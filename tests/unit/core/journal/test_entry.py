"""A journal entry: the body kept as its bytes, the shared empty lists, the duration."""

from __future__ import annotations

from typing import cast

import orjson
import pytest

from zenmux_emulator.core.journal.entry import JournalEntry


def entry() -> JournalEntry:
    return JournalEntry(1, "r-1", 0.0, "POST", "/api/v1/chat/completions", {"Authorization": "Bearer sk-secret"})


def test_the_body_is_kept_as_the_bytes_received_and_decoded_when_read() -> None:
    made = entry()
    raw = b'{"model":"openai/gpt-5","messages":[{"role":"user","content":"hi"}]}'
    made.raw_body = raw
    assert made.body == orjson.loads(raw)
    assert made.raw_body is None  # decoded once: the bytes are let go
    assert made.as_dict()["body"] == orjson.loads(raw)
    made.body = {"summary": "a large body"}  # a summary replaces the bytes
    assert made.raw_body is None and made.body == {"summary": "a large body"}


def test_the_lists_an_entry_seldom_fills_start_empty_and_shared_but_refuse_to_grow() -> None:
    first, second = entry(), entry()
    assert first.warnings == [] and first.near_misses == [] and first.unmet_expectations == []
    with pytest.raises(TypeError):
        cast(list[str], first.warnings).append("x")  # what a caller holding it as a list would do
    with pytest.raises(TypeError):
        unmet = cast(list[str], first.unmet_expectations)
        unmet += ["x"]
    first.warn(["one"])
    first.warn(("two",))
    assert first.warnings == ["one", "two"] and second.warnings == []
    assert orjson.loads(orjson.dumps(second.as_dict()))["warnings"] == []


def test_the_duration_is_known_once_the_answer_is_given() -> None:
    made = entry()
    made.started = 10.0
    assert made.duration_ms is None
    made.finished = 10.0123456
    assert made.duration_ms == 12.346
