"""Completion headers: escaped to ASCII, and the warnings list cut to a size clients accept."""

from zenmux_emulator.core.headers import (
    MAX_WARNINGS_HEADER,
    list_header,
    reply_headers,
)


def test_rule_names_beyond_ascii_are_escaped_not_garbled():
    headers = reply_headers("abc", "grüße", ())
    assert headers == {"x-generation-id": "abc", "X-Emulator-Rule": "gr\\xfc\\xdfe"}
    headers["X-Emulator-Rule"].encode("ascii")


def test_no_rule_and_no_warnings_give_only_the_generation_id():
    assert reply_headers("abc", None, ()) == {"x-generation-id": "abc"}


def test_many_warnings_are_cut_with_a_count_of_the_rest():
    warnings = tuple(f"unknown parameter 'field_{i:04}' was ignored" for i in range(200))
    text = list_header(warnings)
    assert len(text) <= MAX_WARNINGS_HEADER + 40
    shown = text.count("was ignored")
    assert 0 < shown < 200
    assert text.endswith(f"; and {200 - shown} more (see the journal)")


def test_few_warnings_are_joined_whole():
    assert list_header(("a", "b")) == "a; b"
