"""The token budget across content, refusal and tool calls, and the structured-output fit check."""

from __future__ import annotations

from zenmux_emulator.core.draft.budget import call_tokens, cut_calls, cut_text
from zenmux_emulator.core.draft.structured import misfit

CALL = {"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": '{"zone":"CET"}'}}


def test_text_is_cut_to_the_budget_and_the_rest_is_passed_on() -> None:
    assert cut_text("one two three", 2) == ("one two", 0, True)
    assert cut_text("one two", 5) == ("one two", 3, False)
    assert cut_text("anything", None) == ("anything", None, False)
    assert cut_text(None, 3) == (None, 3, False)


def test_calls_within_the_budget_are_kept_whole() -> None:
    assert cut_calls([CALL], call_tokens(CALL)) == ([CALL], False)
    assert cut_calls([CALL], None) == ([CALL], False)


def test_the_last_call_s_arguments_are_truncated_and_later_calls_dropped() -> None:
    name = call_tokens({**CALL, "function": {"name": "get_time", "arguments": ""}})
    kept, cut = cut_calls([CALL, CALL], name + 2)
    assert cut and len(kept) == 1
    assert kept[0]["function"] == {"name": "get_time", "arguments": '{"'}
    assert CALL["function"]["arguments"] == '{"zone":"CET"}'  # the scripted call is not changed


def test_a_call_with_no_room_for_its_name_is_not_sent() -> None:
    assert cut_calls([CALL], 1) == ([], True)


def test_content_fits_or_says_why_not() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert misfit('{"n": 3}', schema) is None
    assert misfit("prose", schema) == "it is not JSON"
    assert misfit('{"n": "three"}', schema) == "['n']: 'three' is not of type 'integer'"
    assert misfit("{}", schema) == "the value: 'n' is a required property"
    assert misfit("{}", {"type": "nonsense"}) == "the schema could not be checked (UnknownType)"
