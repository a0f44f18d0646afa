"""Readers of OpenAI's chat message format, which more than one face's requests use (chat
completions, ObjectiveAI's Query Completions): message text, tool names, the prompt's size."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.core.neutral.request import NeutralRequest, ToolOptions, ToolResult, cached
from zenmux_emulator.foundation import tokens


def content_text(content: object) -> str:
    """The text of a message's content: a string, or its text and refusal parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict):
                text = part.get("text", part.get("refusal"))
                if isinstance(text, str):
                    texts.append(text)
        return "\n".join(texts)
    return ""


def tool_name(item: Mapping[str, Any]) -> str | None:
    """The name inside a tool or a tool call: `{"type": "function", "function": {"name": …}}`."""
    inner = item.get(item.get("type", "function")) or {}
    name = inner.get("name") if isinstance(inner, dict) else None
    return name if isinstance(name, str) else None


def prompt_tokens(messages: Sequence[Mapping[str, Any]], tools: object, limit: int | None = None) -> int:
    """Deterministic prompt size: per message 3 + role + text (+85 per non-text part), 3 to prime
    the reply, and the tools' JSON. Text stops being counted once the total is past `limit`."""
    total = tokens.TOKENS_PER_REPLY_PRIMING
    for message in messages:
        total += tokens.TOKENS_PER_MESSAGE + 1
        content = message.get("content")
        if isinstance(content, str):
            total += tokens.count(content, None if limit is None else limit - total)
        elif isinstance(content, list):
            for part in content:
                text = part.get("text", part.get("refusal")) if isinstance(part, dict) else None
                total += (
                    tokens.count(text, None if limit is None else limit - total)
                    if isinstance(text, str)
                    else tokens.TOKENS_PER_NON_TEXT_PART
                )
        for call in message.get("tool_calls") or ():
            total += tokens.count(orjson.dumps(call).decode(), None if limit is None else limit - total)
    if tools:
        total += tokens.count(orjson.dumps(tools).decode(), None if limit is None else limit - total)
    return total


def tool_options(body: Mapping[str, Any], stated_choice: str | None) -> ToolOptions:
    """The offered tools by name, the stated `tool_choice` (None: absent, which means `auto`) and
    `parallel_tool_calls`, from a validated body."""
    offered: dict[str, Mapping[str, Any]] = {}
    for tool in body.get("tools") or ():
        kind = tool.get("type", "function")
        inner = tool.get(kind) or {}
        offered[inner["name"]] = {"type": kind, **inner}
    return ToolOptions(offered, stated_choice or "auto", body.get("parallel_tool_calls") is not False)


class ChatMessagesRequest(NeutralRequest):
    """The facts of a conversation in chat messages (`self.messages`), for faces whose requests
    carry them; each face still says how its tools, choice and options are read."""

    messages: list[dict[str, Any]]

    @cached
    def last_user(self) -> str:
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""

    @cached
    def system(self) -> str:
        return "\n".join(
            content_text(m.get("content")) for m in self.messages if m.get("role") in ("system", "developer")
        )

    @cached
    def texts(self) -> tuple[str, ...]:
        return tuple(content_text(m.get("content")) for m in self.messages)

    @cached
    def roles(self) -> tuple[str, ...]:
        return tuple(str(m.get("role")) for m in self.messages)

    @cached
    def turn(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.messages or self.messages[-1].get("role") != "tool":
            return None
        last = self.messages[-1]
        name = last.get("name")
        if not isinstance(name, str):
            name = self._tool_name_for(last.get("tool_call_id"))
        return name or "", content_text(last.get("content"))

    def _tool_name_for(self, call_id: object) -> str | None:
        for message in reversed(self.messages):
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and call.get("id") == call_id:
                    return tool_name(call)
        return None

    @cached
    def prompt_tokens(self) -> int:
        return prompt_tokens(self.messages, self.body.get("tools"), self.token_limit)

    @cached
    def seed_material(self) -> bytes:
        return orjson.dumps({"model": self.model, "messages": self.messages}, option=orjson.OPT_SORT_KEYS)
