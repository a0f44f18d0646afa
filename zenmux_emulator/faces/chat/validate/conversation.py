"""Checks across messages that catch agent-loop bugs: every tool result answers an earlier
assistant tool call, and every tool call is answered before the conversation moves on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zenmux_emulator.foundation.errors import invalid_params


def check_tool_flow(messages: Sequence[Mapping[str, Any]]) -> None:
    """400 `invalid_params` naming the message index when the tool calls and results do not pair up."""
    called: set[str] = set()
    pending: dict[str, tuple[int, int]] = {}  # call id -> (message index, call index)
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in called:
                raise invalid_params(
                    f"Parameter messages[{i}].tool_call_id is not valid: no earlier assistant tool call has id {call_id!r}"
                )
            pending.pop(call_id, None)
            continue
        if role in ("user", "assistant") and pending:
            at, index = min(pending.values())
            unanswered = next(k for k, v in pending.items() if v == (at, index))
            raise invalid_params(
                f"Parameter messages[{at}].tool_calls[{index}] is not valid: tool call {unanswered!r} has no tool "
                f"result before messages[{i}] ({role})"
            )
        if role == "assistant":
            for index, call in enumerate(message.get("tool_calls") or ()):
                called.add(call["id"])
                pending[call["id"]] = (i, index)
