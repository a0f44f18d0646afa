"""A Messages request as the core reads it: `AnthropicRequest`, built once from the validated body.

The conversation is read in chat's terms, so that match keys mean the same on both faces: the
top-level `system` (and `role: system` messages) is the system prompt, a user message's
`tool_result` blocks are tool results (not user text), and `turn` counts assistant messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.core.draft.passback import reasoning_findings
from zenmux_emulator.core.draft.reasoning import EFFORT_TOKENS
from zenmux_emulator.core.neutral.request import (
    NeutralRequest,
    ReasoningAsk,
    ToolOptions,
    ToolResult,
    cached,
)
from zenmux_emulator.faces.anthropic.validate import (
    MessagesRequest,
    ThinkingAdaptive,
    ThinkingEnabled,
)
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.signatures import Signer

FAMILY = "anthropic"
"""Thinking blocks on this face are signed as the chat face signs anthropic/* reasoning."""

EFFORTS = {"low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"}


def block_text(content: object) -> str:
    """The text of a content: a string, or its `text` blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _budget_effort(budget: int) -> str:
    """The effort whose thinking budget is nearest above `budget_tokens`."""
    for effort, size in EFFORT_TOKENS.items():
        if budget <= size:
            return effort
    return "xhigh"


def reasoning_ask(request: MessagesRequest) -> ReasoningAsk:
    """`thinking` as the draft reads it. Absent or disabled: no thinking (Anthropic never thinks
    unasked). `budget_tokens` is a ceiling, so the effort it falls in says how much is spent."""
    thinking = request.thinking
    effort = request.output_config.effort if request.output_config is not None else None
    omitted = getattr(thinking, "display", None) == "omitted"
    if isinstance(thinking, ThinkingEnabled):
        chosen = EFFORTS.get(effort or "") or _budget_effort(thinking.budget_tokens)
        spent = min(thinking.budget_tokens, EFFORT_TOKENS[chosen])
        return ReasoningAsk(True, chosen, spent, omitted)
    if isinstance(thinking, ThinkingAdaptive):
        return ReasoningAsk(True, EFFORTS.get(effort or "high", "high"), None, omitted)
    return ReasoningAsk(False, "none")


def tool_options(request: MessagesRequest, body: Mapping[str, Any]) -> ToolOptions:
    """Offered tools by name (custom ones with their `input_schema` as `parameters`), the choice in
    chat's words, and whether parallel calls are allowed."""
    offered: dict[str, Mapping[str, Any]] = {}
    for tool in body.get("tools") or ():
        if tool.get("type") in (None, "custom"):
            offered[tool["name"]] = {
                "type": "function",
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("input_schema"),
            }
        else:
            offered[tool["name"]] = {**tool}
    choice = request.tool_choice
    parallel = not (choice is not None and getattr(choice, "disable_parallel_tool_use", None))
    return ToolOptions(offered, stated_choice(body) or "auto", parallel)


def stated_choice(body: Mapping[str, Any]) -> str | None:
    """`tool_choice` in chat's words: auto, required (any), none, or the forced tool's name."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict):
        return None
    kind = choice.get("type")
    if kind == "tool":
        return str(choice["name"])
    return {"any": "required", "none": "none"}.get(str(kind), "auto")


def passback_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One chat-shaped message per Anthropic message (same indices), as core/draft/passback.py reads
    them: a user message carrying tool results is a `tool` message; an assistant message's
    tool_use blocks are its `tool_calls` and its thinking blocks its `reasoning_details`, indexed
    by their position in the content (a minted block is signed at position 0)."""
    shaped: list[dict[str, Any]] = []
    for message in messages:
        blocks = _blocks(message)
        role = message["role"]
        if role == "user" and any(b.get("type") == "tool_result" for b in blocks):
            shaped.append({"role": "tool"})
            continue
        if role != "assistant":
            shaped.append({"role": role})
            continue
        calls = [b for b in blocks if b.get("type") == "tool_use"]
        details = [
            {"type": "reasoning.text", "text": b.get("thinking"), "signature": b.get("signature"), "index": n}
            for n, b in enumerate(blocks)
            if b.get("type") == "thinking"
        ]
        shaped.append({"role": "assistant", "tool_calls": calls, "reasoning_details": details})
    return shaped


def prompt_tokens(system: str, messages: Sequence[Mapping[str, Any]], tools: object, limit: int | None = None) -> int:
    """Deterministic prompt size in the chat face's scheme: per message 3 + role + text (+85 per
    image or document), tool uses and tool schemas as JSON, 3 to prime the reply. Text stops
    being counted once the total is past `limit`."""
    total = tokens.TOKENS_PER_REPLY_PRIMING

    def room() -> int | None:
        return None if limit is None else limit - total

    if system:
        total += tokens.TOKENS_PER_MESSAGE + 1
        total += tokens.count(system, room())
    for message in messages:
        total += tokens.TOKENS_PER_MESSAGE + 1
        content = message.get("content")
        if isinstance(content, str):
            total += tokens.count(content, room())
            continue
        for block in _blocks(message):
            kind = block.get("type")
            if kind == "text":
                total += tokens.count(block.get("text") or "", room())
            elif kind == "thinking":
                total += tokens.count(block.get("thinking") or "", room())
            elif kind == "tool_result":
                inner = block.get("content")
                total += tokens.count(block_text(inner), room())
                total += sum(
                    tokens.TOKENS_PER_NON_TEXT_PART
                    for b in inner or ()
                    if isinstance(inner, list) and isinstance(b, dict) and b.get("type") != "text"
                )
            elif kind in ("tool_use", "server_tool_use"):
                total += tokens.count(orjson.dumps(block.get("input") or {}).decode(), room())
                total += tokens.count(block["name"], room())
            else:
                total += tokens.TOKENS_PER_NON_TEXT_PART
    if tools:
        total += tokens.count(orjson.dumps(tools).decode(), room())
    return total


class AnthropicRequest(NeutralRequest):
    """`POST /api/anthropic/v1/messages`: the validated model for the options, the body for the facts."""

    face = "anthropic"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        request: MessagesRequest,
        warnings: tuple[str, ...],
        betas: tuple[str, ...],
    ) -> None:
        super().__init__(
            body,
            headers,
            request.model,
            stream=request.stream is True,
            max_tokens=request.max_tokens,
            stop=tuple(request.stop_sequences or ()),
            reasoning=reasoning_ask(request),
            warnings=warnings,
            provider=body.get("provider"),
            model_routing=body.get("model_routing_config"),
        )
        self.request = request
        self.betas = betas
        """The `anthropic-beta` values, as sent."""
        self.messages: list[dict[str, Any]] = body["messages"]

    @cached
    def last_user(self) -> str:
        for message in reversed(self.messages):
            if message["role"] != "user":
                continue
            blocks = _blocks(message)
            if blocks and all(b.get("type") == "tool_result" for b in blocks):
                continue
            return block_text(message["content"])
        return ""

    @cached
    def system(self) -> str:
        parts = [block_text(self.body.get("system"))] if self.body.get("system") else []
        parts += [block_text(m["content"]) for m in self.messages if m["role"] == "system"]
        return "\n".join(parts)

    @cached
    def _neutral(self) -> tuple[tuple[str, str], ...]:
        """(role, text) of every message in chat's terms: the system prompt first, each tool result
        a `tool` message, the rest of a user message after its tool results."""
        out: list[tuple[str, str]] = []
        if self.body.get("system"):
            out.append(("system", block_text(self.body["system"])))
        for message in self.messages:
            blocks = _blocks(message)
            results = [b for b in blocks if b.get("type") == "tool_result"]
            out.extend(("tool", block_text(b.get("content"))) for b in results)
            if not results or any(b.get("type") == "text" for b in blocks):
                out.append((message["role"], block_text(message["content"])))
        return tuple(out)

    @cached
    def texts(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._neutral)

    @cached
    def roles(self) -> tuple[str, ...]:
        return tuple(role for role, _ in self._neutral)

    @cached
    def turn(self) -> int:
        return sum(1 for m in self.messages if m["role"] == "assistant")

    @cached
    def tool_options(self) -> ToolOptions:
        return tool_options(self.request, self.body)

    @cached
    def stated_tool_choice(self) -> str | None:
        return stated_choice(self.body)

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.messages or self.messages[-1]["role"] != "user":
            return None
        results = [b for b in _blocks(self.messages[-1]) if b.get("type") == "tool_result"]
        if not results:
            return None
        last = results[-1]
        return self._tool_name_for(last.get("tool_use_id")) or "", block_text(last.get("content"))

    def _tool_name_for(self, use_id: object) -> str | None:
        for message in reversed(self.messages):
            for block in _blocks(message):
                if block.get("type") == "tool_use" and block.get("id") == use_id:
                    return str(block["name"])
        return None

    @cached
    def metadata(self) -> Mapping[str, str]:
        user = (self.body.get("metadata") or {}).get("user_id")
        return {"user_id": user} if isinstance(user, str) else {}

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        """Structured outputs: `output_config.format` (or the beta's top-level `output_format`)
        `{type: json_schema, schema}`."""
        config = self.request.output_config
        form = config.format if config is not None and config.format is not None else self.body.get("output_format")
        if isinstance(form, dict) and form.get("type") == "json_schema":
            schema = form.get("schema")
            return schema if isinstance(schema, dict) else {"type": "object"}
        return None

    @cached
    def prompt_tokens(self) -> int:
        return prompt_tokens(
            block_text(self.body.get("system")), self.messages, self.body.get("tools"), self.token_limit
        )

    @cached
    def seed_material(self) -> bytes:
        return orjson.dumps(
            {"model": self.model, "system": self.body.get("system"), "messages": self.messages},
            option=orjson.OPT_SORT_KEYS,
        )

    def passback_findings(self, shape: str, signer: Signer, *, require_all: bool = False) -> list[str]:
        """Thinking blocks verify as the anthropic family whatever the model, and the turn a tool
        result continues must start with one for Anthropic's models (named `anthropic/…` or `claude-…`)."""
        required = shape == FAMILY or self.model.split("/")[-1].startswith("claude")
        findings = reasoning_findings(passback_messages(self.messages), FAMILY, signer, require_all=require_all)
        if required or require_all:
            return findings
        return [f for f in findings if "Expected `thinking`" not in f]
