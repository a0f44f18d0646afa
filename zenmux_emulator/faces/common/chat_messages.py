"""Readers of OpenAI's chat message format, which more than one face's requests use (chat
completions, ObjectiveAI's Query Completions): message text, tool names, the prompt's size."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.foundation import tokens
from zenmux_emulator.neutral.request import ToolOptions


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


def prompt_tokens(messages: Sequence[Mapping[str, Any]], tools: object) -> int:
    """Deterministic prompt size: per message 3 + role + text (+85 per non-text part), 3 to prime
    the reply, and the tools' JSON."""
    total = tokens.TOKENS_PER_REPLY_PRIMING
    for message in messages:
        total += tokens.TOKENS_PER_MESSAGE + 1
        content = message.get("content")
        if isinstance(content, str):
            total += tokens.count(content)
        elif isinstance(content, list):
            for part in content:
                text = part.get("text", part.get("refusal")) if isinstance(part, dict) else None
                total += tokens.count(text) if isinstance(text, str) else tokens.TOKENS_PER_NON_TEXT_PART
        for call in message.get("tool_calls") or ():
            total += tokens.count(orjson.dumps(call).decode())
    if tools:
        total += tokens.count(orjson.dumps(tools).decode())
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
