"""Each face's answer read the same way (calls, finish, text, refusal, reasoning), through the
official SDKs with a forced tool, so one check per fault holds on every face."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from tests.faces.anthropic import helpers as anthropic_helpers
from tests.support import clients
from zenmux_emulator.foundation.misbehaviours import HEADER
from zenmux_emulator.pytest_plugin.server import EmulatorServer

OPENAI_MODEL = "openai/gpt-5.4-mini"
ANTHROPIC_MODEL = "anthropic/claude-sonnet-4.5"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
TOOL = "get_weather"
CHAT_TOOLS = [{"type": "function", "function": {"name": TOOL, "parameters": SCHEMA}}]
RESPONSES_TOOLS = [{"type": "function", "name": TOOL, "parameters": SCHEMA, "strict": False}]
ANTHROPIC_TOOLS = [{"name": TOOL, "input_schema": SCHEMA}]


OPEN: list[Any] = []
"""The SDK clients made for the running test: the folder's conftest closes them after it (a client
left to the collector warns of its unclosed socket, and warnings are errors)."""


def sdk(server: EmulatorServer, session: str, **options: Any) -> Any:
    """The openai SDK in the session, closed after the test."""
    client = clients.sdk(server, session, **options)
    OPEN.append(client)
    return client


def anthropic_sdk(server: EmulatorServer, session: str) -> anthropic.Anthropic:
    """The anthropic SDK in the session, closed after the test."""
    client = anthropic_helpers.sdk(server, session)
    OPEN.append(client)
    return client


@dataclass
class Seen:
    """A reply as the tests read it, whatever the face."""

    calls: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, name, argument text) per tool call; an Anthropic message's object `input` as JSON."""
    finish: str = ""
    """chat's finish_reason, Anthropic's stop_reason, Responses' status (`incomplete:<reason>`)."""
    text: str | None = None
    refusal: str | None = None
    reasoning: str | None = None
    item_status: list[str] = field(default_factory=list)
    """Responses: each function_call item's status."""


def _chat(server: EmulatorServer, session: str, headers: dict[str, str], text: str, **more: Any) -> Any:
    """One chat request forcing the tool (`more`: `stream=True`)."""
    return sdk(server, session, headers=headers).chat.completions.create(
        model=OPENAI_MODEL,
        messages=[{"role": "user", "content": text}],
        tools=CHAT_TOOLS,  # type: ignore[arg-type]
        tool_choice={"type": "function", "function": {"name": TOOL}},
        reasoning_effort="low",
        **more,
    )


def chat_plain(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    completion = _chat(server, session, headers, text)
    choice = choice_of(completion)
    message = choice.message
    return Seen(
        [
            (c.id, c.function.name, c.function.arguments)
            for c in message.tool_calls or []  # type: ignore[union-attr]
        ],
        choice.finish_reason,
        message.content,
        message.refusal,
        (message.model_extra or {}).get("reasoning"),
    )


def choice_of(completion: Any) -> Any:
    assert len(completion.choices) == 1
    return completion.choices[0]


def chat_stream(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    stream = _chat(server, session, headers, text, stream=True)
    calls: dict[int, list[str]] = {}
    seen = Seen()
    for chunk in stream:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content is not None:
                seen.text = (seen.text or "") + delta.content
            if delta.refusal is not None:
                seen.refusal = (seen.refusal or "") + delta.refusal
            thought = (delta.model_extra or {}).get("reasoning")
            if thought:
                seen.reasoning = (seen.reasoning or "") + thought
            for call in delta.tool_calls or []:
                made = calls.setdefault(call.index, ["", "", ""])
                if call.id:
                    made[0] = call.id
                if call.function and call.function.name:
                    made[1] = call.function.name
                if call.function and call.function.arguments:
                    made[2] += call.function.arguments
            if choice.finish_reason:
                seen.finish = choice.finish_reason
    seen.calls = [(i, n, a) for i, n, a in (calls[k] for k in sorted(calls))]
    return seen


def _responses_seen(response: Any) -> Seen:
    seen = Seen(
        finish=response.status + (f":{response.incomplete_details.reason}" if response.incomplete_details else "")
    )
    for item in response.output:
        if item.type == "function_call":
            seen.calls.append((item.call_id, item.name, item.arguments))
            seen.item_status.append(item.status)
        elif item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    seen.text = (seen.text or "") + part.text
                else:
                    seen.refusal = (seen.refusal or "") + part.refusal
        elif item.type == "reasoning":
            seen.reasoning = " ".join(s.text for s in item.summary)
    return seen


def _responses(server: EmulatorServer, session: str, headers: dict[str, str], text: str, **more: Any) -> Any:
    """One Responses request forcing the tool, with a reasoning summary (`more`: `stream=True`)."""
    return sdk(server, session, headers=headers).responses.create(
        model=OPENAI_MODEL,
        input=text,
        tools=RESPONSES_TOOLS,  # type: ignore[arg-type]
        tool_choice={"type": "function", "name": TOOL},
        reasoning={"effort": "low", "summary": "auto"},
        **more,
    )


def responses_plain(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    return _responses_seen(_responses(server, session, headers, text))


def responses_stream(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    stream = _responses(server, session, headers, text, stream=True)
    kinds, final, arguments = [], None, {}
    for event in stream:
        kinds.append(event.type)
        if event.type == "response.function_call_arguments.delta":
            arguments[event.item_id] = arguments.get(event.item_id, "") + event.delta
        if event.type in ("response.completed", "response.incomplete"):
            final = event.response
    assert final is not None and kinds[-1] in ("response.completed", "response.incomplete"), kinds
    seen = _responses_seen(final)
    calls = [item for item in final.output if item.type == "function_call"]
    assert [arguments.get(item.id, "") for item in calls] == [c[2] for c in seen.calls]  # the deltas add up
    return seen


def _messages(server: EmulatorServer, session: str, headers: dict[str, str], text: str, **more: Any) -> Any:
    """One Messages request forcing the tool, with thinking on (`more`: `stream=True`)."""
    client: anthropic.Anthropic = anthropic_sdk(server, session)
    return client.messages.create(
        model=ANTHROPIC_MODEL,
        max_tokens=2048,
        messages=[{"role": "user", "content": text}],
        tools=ANTHROPIC_TOOLS,  # type: ignore[arg-type]
        tool_choice={"type": "tool", "name": TOOL},
        thinking={"type": "enabled", "budget_tokens": 1024},
        extra_headers=headers,
        **more,
    )


def _blocks_seen(blocks: list[tuple[str, str, str, str]], finish: str) -> Seen:
    """(type, id, name, text) per block: a tool_use's text is its `input` (as sent, or as JSON)."""
    seen = Seen(finish=finish)
    for kind, made, name, body in blocks:
        if kind == "tool_use":
            seen.calls.append((made, name, body))
        elif kind == "text":
            seen.text = (seen.text or "") + body
        elif kind == "thinking":
            seen.reasoning = body
    if finish == "refusal":
        seen.refusal, seen.text = seen.text, None
    return seen


def anthropic_plain(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    message = _messages(server, session, headers, text)
    blocks = []
    for block in message.content:
        given = getattr(block, "input", None)
        body = given if isinstance(given, str) else json.dumps(given) if block.type == "tool_use" else ""
        blocks.append(
            (
                block.type,
                getattr(block, "id", ""),
                getattr(block, "name", ""),
                body or getattr(block, "text", None) or getattr(block, "thinking", ""),
            )
        )
    return _blocks_seen(blocks, str(message.stop_reason))


def anthropic_stream(server: EmulatorServer, session: str, headers: dict[str, str], text: str = "weather") -> Seen:
    stream = _messages(server, session, headers, text, stream=True)
    finish, blocks, kinds = "", {}, []
    for event in stream:
        kinds.append(event.type)
        if event.type == "content_block_start":
            block = event.content_block
            blocks[event.index] = [block.type, getattr(block, "id", ""), getattr(block, "name", ""), ""]
        elif event.type == "content_block_delta":
            delta = event.delta
            piece = (
                getattr(delta, "partial_json", None) or getattr(delta, "text", None) or getattr(delta, "thinking", "")
            )
            blocks[event.index][3] += piece or ""
        elif event.type == "message_delta":
            finish = str(event.delta.stop_reason)
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop", kinds
    return _blocks_seen([tuple(blocks[i]) for i in sorted(blocks)], finish)  # type: ignore[misc]


Ask = Callable[[EmulatorServer, str, dict[str, str]], Seen]
FACES: dict[str, Ask] = {
    "chat": chat_plain,
    "chat-stream": chat_stream,
    "responses": responses_plain,
    "responses-stream": responses_stream,
    "anthropic": anthropic_plain,
    "anthropic-stream": anthropic_stream,
}


def misbehave(fault: str, variant: str = "") -> dict[str, str]:
    return {HEADER: f"{fault};{variant}" if variant else fault}
