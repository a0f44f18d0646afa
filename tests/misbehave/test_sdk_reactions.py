"""What the official SDKs' helpers do with each fault (openai 3.x `parse` and `stream`, anthropic
`messages.stream`), as docs/guide/misbehaviour.md tells users: measured here, so the page says
what the pinned clients do. `create` on every face passes every fault through (test_sdks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai
import pydantic
import pytest

from tests.misbehave.helpers import (
    ANTHROPIC_MODEL,
    ANTHROPIC_TOOLS,
    OPENAI_MODEL,
    SCHEMA,
    TOOL,
    anthropic_sdk,
    misbehave,
    sdk,
)
from zenmux_emulator.pytest_plugin.server import EmulatorServer


class GetWeather(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    city: str
    unit: str
    days: int | None


STRICT_CHAT = openai.pydantic_function_tool(GetWeather, name=TOOL)
STRICT_RESPONSES = [{"type": "function", "name": TOOL, "parameters": SCHEMA, "strict": True}]
FAULTS = [
    "tool-args-invalid-json;trailing-comma",
    "tool-args-schema-violation;missing-required",
    "tool-unknown-name",
    "tool-call-id-duplicate",
    "stop-length-mid-tool",
    "empty-response",
    "refusal",
    "content-filter",
    "reasoning-only",
]

OK = "passes"
_CHAT_PARSE = {
    "tool-args-invalid-json;trailing-comma": "ValidationError",
    "tool-args-schema-violation;missing-required": "ValidationError",
    "tool-unknown-name": OK,
    "tool-call-id-duplicate": OK,
    "stop-length-mid-tool": "LengthFinishReasonError",
    "empty-response": OK,
    "refusal": OK,
    "content-filter": "ContentFilterFinishReasonError",
    "reasoning-only": "LengthFinishReasonError",
}
_RESPONSES_PARSE = {fault: OK for fault in FAULTS} | {
    "tool-args-invalid-json;trailing-comma": "JSONDecodeError",
    "stop-length-mid-tool": "JSONDecodeError",
}
REACTIONS: dict[str, dict[str, str]] = {
    "chat.completions.parse": _CHAT_PARSE,
    "chat.completions.stream": _CHAT_PARSE | {"tool-args-invalid-json;trailing-comma": "ValueError"},
    "responses.parse": _RESPONSES_PARSE,
    "responses.stream": _RESPONSES_PARSE
    | {
        fault: "RuntimeError"  # a duplicate call_id; no response.completed event
        for fault in ("tool-call-id-duplicate", "stop-length-mid-tool", "content-filter", "reasoning-only")
    },
    "messages.stream": {fault: OK for fault in FAULTS} | {"tool-args-invalid-json;trailing-comma": "ValueError"},
}
"""What each helper does with each fault: `passes` (the wrong output reaches the caller) or the
exception it raises."""


CHAT_ASK: dict[str, Any] = {
    "model": OPENAI_MODEL,
    "messages": [{"role": "user", "content": "weather"}],
    "tools": [STRICT_CHAT],
    "tool_choice": "required",
}
RESPONSES_ASK: dict[str, Any] = {
    "model": OPENAI_MODEL,
    "input": "weather",
    "tools": STRICT_RESPONSES,
    "tool_choice": "required",
}


def _chat_parse(server: EmulatorServer, session: str, headers: dict[str, str]) -> Any:
    return sdk(server, session, headers=headers).chat.completions.parse(**CHAT_ASK)


def _chat_stream(server: EmulatorServer, session: str, headers: dict[str, str]) -> Any:
    with sdk(server, session, headers=headers).chat.completions.stream(**CHAT_ASK) as stream:
        return stream.get_final_completion()


def _responses_parse(server: EmulatorServer, session: str, headers: dict[str, str]) -> Any:
    return sdk(server, session, headers=headers).responses.parse(**RESPONSES_ASK)


def _responses_stream(server: EmulatorServer, session: str, headers: dict[str, str]) -> Any:
    with sdk(server, session, headers=headers).responses.stream(**RESPONSES_ASK) as stream:
        return stream.get_final_response()


def _messages_stream(server: EmulatorServer, session: str, headers: dict[str, str]) -> Any:
    with anthropic_sdk(server, session).messages.stream(
        model=ANTHROPIC_MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": "weather"}],
        tools=ANTHROPIC_TOOLS,
        tool_choice={"type": "any"},
        extra_headers=headers,
    ) as stream:  # type: ignore[arg-type]
        return stream.get_final_message()


HELPERS: dict[str, Callable[[EmulatorServer, str, dict[str, str]], Any]] = {
    "chat.completions.parse": _chat_parse,
    "chat.completions.stream": _chat_stream,
    "responses.parse": _responses_parse,
    "responses.stream": _responses_stream,
    "messages.stream": _messages_stream,
}


@pytest.mark.parametrize("helper", list(HELPERS))
@pytest.mark.parametrize("fault", FAULTS)
def test_what_the_sdk_helper_does(server: EmulatorServer, helper: str, fault: str) -> None:
    expected = REACTIONS[helper][fault]
    call = HELPERS[helper]
    if expected == OK:
        assert call(server, f"react-{helper}-{fault}", misbehave(*fault.split(";"))) is not None
    else:
        with pytest.raises(Exception) as raised:
            call(server, f"react-{helper}-{fault}", misbehave(*fault.split(";")))
        assert type(raised.value).__name__ == expected, repr(raised.value)
