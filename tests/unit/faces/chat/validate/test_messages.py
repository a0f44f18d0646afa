"""Message models: role dispatch, text(), and reasoning_details kept exactly as sent."""

from typing import Any

import pytest
from pydantic import TypeAdapter

from zenmux_emulator.faces.chat.validate import (
    AssistantMessage,
    Message,
    ReasoningDetail,
    ToolMessage,
    UserMessage,
    validate_request,
)

MESSAGE = TypeAdapter(Message)
CUSTOM_CALL = {"id": "c", "type": "custom", "custom": {"name": "n", "input": "i"}}


def messages_of(*messages: dict[str, Any]) -> list[Any]:
    return list(validate_request({"model": "a/b", "messages": list(messages)}).request.messages)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"role": "user", "content": "plain"}, "plain"),
        ({"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "a\nb"),
        (
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "u"}},
                    {"type": "text", "text": "here"},
                ],
            },
            "look\nhere",
        ),
        ({"role": "assistant", "content": [{"type": "refusal", "refusal": "no way"}]}, "no way"),
        (
            {"role": "assistant", "content": None, "tool_calls": [CUSTOM_CALL]},
            "",
        ),
        ({"role": "tool", "tool_call_id": "c", "content": ""}, ""),
    ],
)
def test_text(message: dict[str, Any], expected: str) -> None:
    # a tool result must answer an earlier call (validate/conversation.py): give it one
    caller = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }
    parsed = messages_of(caller, message)[-1] if message["role"] == "tool" else messages_of(message)[0]
    assert parsed.text() == expected


def test_assistant_with_tool_calls_needs_no_content() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    (assistant,) = messages_of({"role": "assistant", "tool_calls": [call]})
    assert isinstance(assistant, AssistantMessage)
    assert assistant.content is None
    assert assistant.tool_calls is not None and assistant.tool_calls[0].function.arguments == "{}"


def test_reasoning_details_are_kept_exactly() -> None:
    detail = {
        "signature": "EqQBCkgIARABGAIiQL+/==",
        "type": "reasoning.text",
        "text": "Let me think",
        "format": "anthropic-claude-v1",
        "index": 0,
        "vendor_extra": {"nested": [1, 2]},
    }
    summary = {"type": "reasoning.summary", "summary": "s", "index": "0"}
    (assistant,) = messages_of({"role": "assistant", "content": "", "reasoning_details": [dict(detail), summary]})
    assert isinstance(assistant, AssistantMessage) and assistant.reasoning_details is not None
    first, second = assistant.reasoning_details
    assert first.raw == detail
    assert list(first.raw) == list(detail)  # key order too
    assert first.signature == detail["signature"] and first.index == 0
    assert first.model_extra == {"vendor_extra": {"nested": [1, 2]}}
    assert second.index == "0" and second.raw == summary


def test_reasoning_detail_built_in_code_still_has_raw() -> None:
    detail = ReasoningDetail(type="reasoning.text", text="t")
    assert detail.raw == {"type": "reasoning.text", "text": "t"}


def test_unknown_message_keys_are_ignored() -> None:
    parsed = MESSAGE.validate_python({"role": "user", "content": "x", "reasoning_content": "?"})
    assert isinstance(parsed, UserMessage)
    assert "reasoning_content" not in parsed.model_dump()


def test_tool_message_keeps_call_id_and_name() -> None:
    parsed = MESSAGE.validate_python({"role": "tool", "tool_call_id": "call_9", "content": "ok", "name": "f"})
    assert isinstance(parsed, ToolMessage)
    assert (parsed.tool_call_id, parsed.name) == ("call_9", "f")
