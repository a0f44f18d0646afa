"""An Interactions request as the core reads it: `InteractionsRequest`, over the conversation its
`input` makes (`conversation.py`), `system_instruction` first as the system prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from zenmux_emulator.core.neutral.request import (
    NeutralRequest,
    ReasoningAsk,
    ToolOptions,
    ToolResult,
    cached,
)
from zenmux_emulator.faces.interactions.conversation import Message, to_messages
from zenmux_emulator.faces.interactions.validate import GenerationConfig, InteractionsBody
from zenmux_emulator.foundation import tokens

CHOICES = {"any": "required", "none": "none", "auto": "auto", "validated": "auto"}
"""Google's tool choice in the core's words (`validated`: calls checked against their schema, still `auto`)."""


def reasoning_ask(config: GenerationConfig | None) -> ReasoningAsk:
    """`thinking_level` names the effort; silent, the catalogue's model decides."""
    if config is None or config.thinking_level is None:
        return ReasoningAsk(None)
    return ReasoningAsk(True, config.thinking_level)


def _schema_of(form: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A text response format's JSON Schema (`{"type": "text", "mime_type": "application/json",
    "schema": …}`), or the format itself when it is a bare schema (the earlier form, beside
    `response_mime_type`)."""
    schema = form.get("schema")
    if isinstance(schema, dict):
        return schema
    if "properties" in form or form.get("type") in ("object", "array"):
        return form
    return None


class InteractionsRequest(NeutralRequest):
    """`POST /api/v1/interactions`: the validated body for the options, `input` for the facts."""

    face = "interactions"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], parsed: InteractionsBody) -> None:
        config = parsed.generation_config
        super().__init__(
            body,
            headers,
            parsed.model,
            stream=parsed.stream is True,
            max_tokens=config.max_output_tokens if config else None,
            stop=tuple(config.stop_sequences or ()) if config else (),
            reasoning=reasoning_ask(config),
            provider=body.get("provider"),
            model_routing=body.get("model_routing_config"),
        )
        self.parsed = parsed
        self.conversation = to_messages(body.get("input"))
        """The turns `input` holds, after the system instruction."""

    @cached
    def messages(self) -> list[Message]:
        head: list[Message] = []
        if self.parsed.system_instruction:
            head = [{"role": "system", "content": self.parsed.system_instruction, "parts": 0}]
        return head + self.conversation

    @cached
    def last_user(self) -> str:
        return next((str(m["content"]) for m in reversed(self.messages) if m["role"] == "user"), "")

    @cached
    def system(self) -> str:
        return self.parsed.system_instruction or ""

    @cached
    def texts(self) -> tuple[str, ...]:
        return tuple(str(m["content"]) for m in self.messages)

    @cached
    def roles(self) -> tuple[str, ...]:
        return tuple(m["role"] for m in self.messages)

    @cached
    def tool_options(self) -> ToolOptions:
        offered: dict[str, Mapping[str, Any]] = {}
        for tool in self.parsed.tools or ():
            name = tool.get("name")
            if tool.get("type") == "function" and isinstance(name, str):
                offered[name] = {"type": "function", "name": name, "parameters": tool.get("parameters") or {}}
        return ToolOptions(offered, self.stated_tool_choice or "auto")

    @cached
    def stated_tool_choice(self) -> str | None:
        config = self.parsed.generation_config
        choice = config.tool_choice if config else None
        if choice is None:
            return None
        if isinstance(choice, str):
            return CHOICES[choice]
        allowed = choice.get("allowed_tools")
        mode = allowed.get("mode") if isinstance(allowed, dict) else None
        return CHOICES.get(mode, "auto") if isinstance(mode, str) else "auto"

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.messages or self.messages[-1]["role"] != "tool":
            return None
        last = self.messages[-1]
        for message in reversed(self.messages):
            for call in message.get("tool_calls") or ():
                if call["id"] == last["tool_call_id"]:
                    return call["function"]["name"], str(last["content"])
        return str(last.get("name", "")), str(last["content"])

    @cached
    def metadata(self) -> Mapping[str, str]:
        return {}

    @cached
    def prompt_tokens(self) -> int:
        """The chat face's scheme: per message 3 + role + text (+85 per media part), its calls'
        JSON, 3 to prime the reply, and the tools' JSON; stops past `token_limit`."""
        limit, total = self.token_limit, tokens.TOKENS_PER_REPLY_PRIMING
        for message in self.messages:
            total += tokens.TOKENS_PER_MESSAGE + 1 + tokens.TOKENS_PER_NON_TEXT_PART * message["parts"]
            total += tokens.count(str(message["content"]), None if limit is None else limit - total)
            for call in message.get("tool_calls") or ():
                total += tokens.count(orjson.dumps(call).decode(), None if limit is None else limit - total)
        if self.parsed.tools:
            total += tokens.count(orjson.dumps(self.parsed.tools).decode(), None if limit is None else limit - total)
        return total

    @cached
    def media_tokens(self) -> int:
        """The tokens of the media parts (`usage.input_tokens_by_modality` counts them apart)."""
        return tokens.TOKENS_PER_NON_TEXT_PART * sum(int(m["parts"]) for m in self.messages)

    @cached
    def seed_material(self) -> bytes:
        return orjson.dumps({"model": self.model, "messages": self.messages}, option=orjson.OPT_SORT_KEYS)

    @cached
    def web_search(self) -> bool:
        return any(tool.get("type") == "google_search" for tool in self.parsed.tools or ())

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        form = self.parsed.response_format
        forms = form if isinstance(form, list) else [form] if form is not None else []
        return next((schema for f in forms if (schema := _schema_of(f)) is not None), None)
