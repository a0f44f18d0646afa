"""validate/conversation.py: tool results answer earlier calls, and calls are answered before the
conversation moves on; each failure is a 400 `invalid_params` naming the message index."""

from __future__ import annotations

from typing import Any

import pytest

from zenmux_emulator.faces.chat.validate import validate_request
from zenmux_emulator.faces.chat.validate.conversation import check_tool_flow
from zenmux_emulator.foundation.errors import RequestRejected

USER = {"role": "user", "content": "hi"}


def call(call_id: str, kind: str = "function") -> dict[str, Any]:
    if kind == "custom":
        return {"id": call_id, "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def assistant(*ids: str, kind: str = "function") -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [call(i, kind) for i in ids]}


def tool(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def rejected(messages: list[dict[str, Any]]) -> RequestRejected:
    with pytest.raises(RequestRejected) as raised:
        check_tool_flow(messages)
    assert raised.value.status == 400 and raised.value.type == "invalid_params"
    return raised.value


# --- valid flows ------------------------------------------------------------------------------------

VALID = {
    "no tools": [USER, {"role": "assistant", "content": "hello"}, USER],
    "one call answered": [USER, assistant("a"), tool("a")],
    "answered then the user speaks": [USER, assistant("a"), tool("a"), {"role": "assistant", "content": "done"}, USER],
    "parallel results in order": [USER, assistant("a", "b", "c"), tool("a"), tool("b"), tool("c")],
    "parallel results in any order": [USER, assistant("a", "b", "c"), tool("c"), tool("a"), tool("b")],
    "several rounds": [USER, assistant("a"), tool("a"), assistant("b", "c"), tool("c"), tool("b"), USER],
    "trailing call without result yet": [USER, assistant("a")],
    "trailing parallel calls without results yet": [USER, assistant("a", "b")],
    "custom tool calls": [USER, assistant("x", kind="custom"), tool("x")],
    "system message between": [{"role": "system", "content": "be brief"}, USER, assistant("a"), tool("a")],
}


@pytest.mark.parametrize("name", list(VALID))
def test_valid_flows_pass(name: str):
    assert check_tool_flow(VALID[name]) is None


@pytest.mark.parametrize("name", list(VALID))
def test_valid_flows_pass_the_whole_request_validation(name: str):
    validated = validate_request({"model": "openai/gpt-5", "messages": VALID[name]})
    assert len(validated.request.messages) == len(VALID[name])


# --- a result that answers nothing ------------------------------------------------------------------


def test_a_result_for_an_unknown_call_names_its_index():
    error = rejected([USER, assistant("a"), tool("a"), tool("zzz")])
    assert error.message.startswith("Parameter messages[3].tool_call_id is not valid")
    assert "'zzz'" in error.message


def test_a_result_before_any_call_is_rejected():
    error = rejected([USER, tool("a")])
    assert "messages[1].tool_call_id" in error.message


def test_a_result_for_a_call_of_a_later_message_is_rejected():
    error = rejected([USER, tool("a"), assistant("a")])
    assert "messages[1]" in error.message


# --- a call left unanswered -------------------------------------------------------------------------


def test_an_unanswered_call_before_a_user_message_names_the_call():
    error = rejected([USER, assistant("a", "b"), tool("a"), USER])
    assert error.message.startswith("Parameter messages[1].tool_calls[1] is not valid")
    assert "'b'" in error.message and "messages[3] (user)" in error.message


def test_an_unanswered_call_before_an_assistant_message_is_rejected():
    error = rejected([USER, assistant("a"), {"role": "assistant", "content": "never mind"}])
    assert error.message.startswith("Parameter messages[1].tool_calls[0] is not valid")
    assert "messages[2] (assistant)" in error.message


def test_no_result_at_all_before_the_next_user_message():
    error = rejected([USER, assistant("a", "b"), USER])
    assert "messages[1].tool_calls[0]" in error.message and "'a'" in error.message


def test_the_earliest_unanswered_call_is_reported():
    error = rejected([USER, assistant("a"), tool("a"), assistant("b", "c"), tool("c"), assistant("d"), tool("d")])
    assert "messages[3].tool_calls[0]" in error.message and "'b'" in error.message


# --- through validate_request: a tool message without tool_call_id ---------------------------------


def test_a_tool_message_without_tool_call_id_names_its_index():
    with pytest.raises(RequestRejected) as raised:
        validate_request(
            {"model": "openai/gpt-5", "messages": [USER, assistant("a"), {"role": "tool", "content": "ok"}]}
        )
    assert raised.value.status == 400 and raised.value.type == "invalid_params"
    assert "messages[2].tool_call_id" in raised.value.message


def test_validate_request_runs_the_flow_checks():
    with pytest.raises(RequestRejected) as raised:
        validate_request({"model": "openai/gpt-5", "messages": [USER, assistant("a"), USER]})
    assert "messages[1].tool_calls[0]" in raised.value.message
    with pytest.raises(RequestRejected) as raised:
        validate_request({"model": "openai/gpt-5", "messages": [USER, tool("nope")]})
    assert "messages[1].tool_call_id" in raised.value.message
