"""render/logprobs.py: log probabilities that are the same for the same text, in OpenAI's shape."""

from __future__ import annotations

import pytest

from zenmux_emulator.faces.chat.logprobs import token_logprobs
from zenmux_emulator.foundation import tokens

TEXT = "The cat sat on the mat, 你好 😀."


def test_the_same_text_gets_the_same_numbers():
    pieces = tokens.pieces(TEXT)
    assert token_logprobs(pieces, 5) == token_logprobs(list(pieces), 5)


def test_one_entry_per_token_with_its_bytes():
    pieces = tokens.pieces(TEXT)
    entries = token_logprobs(pieces, 3)
    assert [e["token"] for e in entries] == pieces
    assert all(e["bytes"] == list(e["token"].encode("utf-8")) for e in entries)
    assert b"".join(bytes(e["bytes"]) for e in entries).decode("utf-8") == TEXT


@pytest.mark.parametrize("top", [0, 1, 2, 5, 20])
def test_top_logprobs_has_exactly_top_alternatives_the_token_first(top: int):
    for entry in token_logprobs(tokens.pieces(TEXT), top):
        alternatives = entry["top_logprobs"]
        assert len(alternatives) == top
        if top:
            assert alternatives[0]["token"] == entry["token"]
            assert alternatives[0]["logprob"] == entry["logprob"]
        assert len({a["token"] for a in alternatives}) == top  # no token twice
        assert all(a["bytes"] == list(a["token"].encode()) for a in alternatives)


def test_logprobs_are_non_positive_and_alternatives_less_likely():
    for entry in token_logprobs(tokens.pieces(TEXT), 5):
        assert -12 < entry["logprob"] <= 0
        values = [a["logprob"] for a in entry["top_logprobs"]]
        assert values == sorted(values, reverse=True)
        assert all(value < entry["logprob"] for value in values[1:])


def test_the_position_matters_not_the_call():
    pieces = tokens.pieces("yes yes yes")
    entries = token_logprobs(pieces, 0)
    assert entries[1]["logprob"] == token_logprobs(pieces[1:2], 0, start=1)[0]["logprob"]
    # A streamed reply asks chunk by chunk with `start`; the numbers equal the whole text's.
    chunked = token_logprobs(pieces[:1], 2) + token_logprobs(pieces[1:], 2, start=1)
    assert chunked == token_logprobs(pieces, 2)


def test_no_tokens_no_entries():
    assert token_logprobs([], 3) == []
