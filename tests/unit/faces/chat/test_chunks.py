"""faces/chat/chunks.py: a stream's content deltas, the same bytes whether the text's deltas were
kept from an earlier stream or cut as they are sent."""

from __future__ import annotations

import tracemalloc

import orjson
import pytest

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.draft.usage import usage_object
from zenmux_emulator.faces.chat.chunks import MEMO_MAX_CHARS, stream_events, text_deltas
from zenmux_emulator.foundation import tokens

SHORT = "The cat sat on the mat, 你好 😀."
LONG = "word " * (MEMO_MAX_CHARS // 5 + 10)


def draft(content: str) -> Draft:
    return Draft(model="openai/gpt-5", content=content, refusal=None, finish_reason="stop", usage=usage_object(3, 5))


@pytest.mark.parametrize("text", [SHORT, LONG])
@pytest.mark.parametrize("size", [1, 3])
def test_the_deltas_are_the_texts_pieces_in_order(text: str, size: int) -> None:
    expected = [orjson.dumps({"content": "".join(group)}) for group in tokens.groups(text, size)]
    assert list(text_deltas("content", text, size)) == expected
    assert list(text_deltas("content", text, size)) == expected  # again: kept, or cut again


@pytest.mark.parametrize("text", [SHORT, LONG])
def test_a_stream_carries_the_whole_text_in_its_content_chunks(text: str) -> None:
    events = list(stream_events(draft(text), "gen-1", 7, include_usage=False, top_logprobs=None))
    chunks = [orjson.loads(event.removeprefix(b"data: ")) for event in events[:-1]]
    assert all(c["id"] == "gen-1" and c["created"] == 7 for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == text
    assert events == list(stream_events(draft(text), "gen-1", 7, include_usage=False, top_logprobs=None))


def test_logprobs_still_count_on_from_the_content_into_the_refusal() -> None:
    refused = Draft(model="m", content="one two", refusal="no way", finish_reason="stop", usage=usage_object(1, 4))
    events = list(stream_events(refused, "gen-2", 1, include_usage=False, top_logprobs=0))
    chunks = [orjson.loads(event.removeprefix(b"data: ")) for event in events[1:-2]]
    texts = [c["choices"][0]["delta"].get("content") or c["choices"][0]["delta"].get("refusal") for c in chunks]
    assert texts == ["one", " two", "no", " way"]
    assert [c["choices"][0]["logprobs"]["refusal"] is not None for c in chunks] == [False, False, True, True]


def test_a_text_s_kept_deltas_hold_their_own_size() -> None:
    """Each kept delta is right-sized: orjson's output holds 4 KiB, and a kept text has one delta a token."""
    text = "kept " * 100
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        deltas = text_deltas("content", text, 1)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert isinstance(deltas, tuple) and len(deltas) >= 100
    assert kept <= sum(map(len, deltas)) + 64 * len(deltas) + 1024
