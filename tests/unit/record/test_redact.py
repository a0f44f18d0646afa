"""The recorder's parts on their own: events cut from a byte stream, masks, literal globs,
arguments kept readable only when byte-identical, and the upstream's base URL."""

from __future__ import annotations

import re

import pytest

from zenmux_emulator.core.match.predicates import model_regex
from zenmux_emulator.core.neutral.recorded import arguments_value
from zenmux_emulator.record.capture.exchange import EventSplitter
from zenmux_emulator.record.facts import literal_glob
from zenmux_emulator.record.redact import MASK, Redactor, credentials
from zenmux_emulator.record.upstream import base_of


def test_events_are_cut_across_chunks_with_crlf_comments_and_multiline_data() -> None:
    splitter = EventSplitter()
    splitter.feed(b': ZENMUX PROCESSING\r\n\r\nevent: message_start\r\ndata: {"a":', 5.0)
    splitter.feed(b" 1}\r\n\r\ndata: line one\ndata: line two\n\ndata: [DO", 9.0)
    splitter.feed(b"NE]\n\n", 12.0)
    assert [(e.name, e.data, e.at_ms) for e in splitter.events] == [
        ("message_start", '{"a": 1}', 9.0),
        (None, "line one\nline two", 9.0),
        (None, "[DONE]", 12.0),
    ]
    assert splitter.events[0].json() == {"a": 1} and splitter.events[2].json() is None


def test_a_masked_prompt_matches_the_original_without_writing_the_secret() -> None:
    redactor = Redactor([r"TICKET-\d+"]).with_secrets(["sk-secret-key"])
    prompt = "ticket TICKET-77 (key sk-secret-key) needs help.\n"
    assert redactor.text(prompt) == f"ticket {MASK} (key {MASK}) needs help.\n"
    match = redactor.text_match(prompt)
    assert "TICKET-77" not in match["regex"] and "sk-secret-key" not in match["regex"]
    assert re.search(match["regex"], prompt) and not re.search(match["regex"], prompt + "more")
    assert redactor.text_match("nothing to hide") == {"equals": "nothing to hide"}
    assert redactor.deep({"a": ["TICKET-1", {"TICKET-2": 3}]}) == {"a": [MASK, {MASK: 3}]}


def test_credentials_are_every_secret_header_s_value() -> None:
    assert sorted(
        credentials(
            {"Authorization": "Bearer sk-abc-123", "x-api-key": "sk-xyz-789", "Content-Type": "application/json"}
        )
    ) == ["sk-abc-123", "sk-xyz-789"]


@pytest.mark.parametrize("model", ["openai/gpt-4o", "odd/mo*del?[x]"])
def test_a_literal_glob_matches_only_its_model(model: str) -> None:
    pattern = model_regex([literal_glob(model)])
    assert pattern.match(model) and not pattern.match(model + "x") and not pattern.match("odd/model")


def test_arguments_stay_a_mapping_only_when_the_emulator_would_send_the_same_bytes() -> None:
    assert arguments_value('{"city":"Paris"}') == {"city": "Paris"}
    assert arguments_value('{"city": "Paris"}') == '{"city": "Paris"}'
    assert arguments_value('{"city":') == '{"city":'


@pytest.mark.parametrize(
    ("given", "base"),
    [
        ("https://zenmux.ai", "https://zenmux.ai/"),
        ("https://zenmux.ai/api/v1/", "https://zenmux.ai/"),
        ("http://127.0.0.1:9000/api/anthropic", "http://127.0.0.1:9000/"),
        ("http://gw.local/proxy", "http://gw.local/proxy"),
    ],
)
def test_the_upstream_base_drops_an_api_path(given: str, base: str) -> None:
    assert str(base_of(given)) == base
