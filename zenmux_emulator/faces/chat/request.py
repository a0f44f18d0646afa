"""A chat completions request as the core reads it: `ChatRequest`, built once from the validated body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.draft.passback import reasoning_findings
from zenmux_emulator.core.neutral.request import (
    JSON_OBJECT_SCHEMA,
    SILENT_REASONING,
    ReasoningAsk,
    ToolOptions,
    cached,
)
from zenmux_emulator.faces.chat.validate import ChatCompletionRequest, validate_request
from zenmux_emulator.faces.chat.validate.tools import JsonObjectResponseFormat, JsonSchemaResponseFormat
from zenmux_emulator.faces.common.chat_messages import ChatMessagesRequest, tool_name, tool_options
from zenmux_emulator.faces.common.zenmux import ReasoningOptions
from zenmux_emulator.foundation.signatures import Signer


def reasoning_ask(
    reasoning: ReasoningOptions | None, reasoning_effort: str | None, include_reasoning: bool | None
) -> ReasoningAsk:
    """Read `reasoning`, `reasoning_effort` and `include_reasoning` as ZenMux does."""
    if reasoning is None and reasoning_effort is None and include_reasoning is None:
        return SILENT_REASONING  # most requests say nothing about reasoning
    effort = (reasoning.effort if reasoning is not None and reasoning.effort else None) or reasoning_effort
    max_tokens = reasoning.max_tokens if reasoning is not None else None
    exclude = bool(reasoning is not None and reasoning.exclude) or include_reasoning is False
    explicit = reasoning.enabled if reasoning is not None else None
    if explicit is False or effort == "none":
        return ReasoningAsk(enabled=False, effort="none", max_tokens=max_tokens, exclude=exclude)
    asked = explicit is True or effort is not None or max_tokens is not None or include_reasoning is True
    return ReasoningAsk(
        enabled=True if asked else None, effort=effort or "medium", max_tokens=max_tokens, exclude=exclude
    )


class ChatRequest(ChatMessagesRequest):
    """`POST /api/v1/chat/completions`: the validated model for the face's own options, the
    body's messages for the facts."""

    face = "chat"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        chat: ChatCompletionRequest,
        warnings: tuple[str, ...],
    ) -> None:
        super().__init__(
            body=body,
            headers=headers,
            model=chat.model,
            stream=chat.stream is True,
            max_tokens=chat.max_completion_tokens,
            stop=chat.stop_sequences,
            reasoning=reasoning_ask(chat.reasoning, chat.reasoning_effort, chat.include_reasoning),
            warnings=warnings,
            provider=body.get("provider"),
            model_routing=body.get("model_routing_config"),
        )
        self.chat = chat
        self.messages: list[dict[str, Any]] = body["messages"]

    @property
    def include_usage(self) -> bool:
        """Whether a stream ends with a usage chunk."""
        return self.chat.wants_usage_in_stream

    @property
    def top_logprobs(self) -> int | None:
        """How many alternatives each token's logprobs list; None when logprobs were not asked for."""
        return (self.chat.top_logprobs or 0) if self.chat.logprobs else None

    @classmethod
    def of(cls, body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> ChatRequest:
        """Validate `body` and read it (for code that has a body in hand, tests among them)."""
        validated = validate_request(body)
        return cls(body, headers or {}, validated.request, validated.warnings)

    @cached
    def tool_options(self) -> ToolOptions:
        return tool_options(self.body, self.stated_tool_choice)

    @cached
    def tools(self) -> tuple[str, ...]:
        names = []
        for tool in self.body.get("tools") or ():
            name = tool_name(tool)
            if name is not None:
                names.append(name)
        return tuple(names)

    @cached
    def stated_tool_choice(self) -> str | None:
        choice = self.body.get("tool_choice")
        if choice is None:
            return None
        if isinstance(choice, str):
            return choice
        kind = choice.get("type")
        name = tool_name(choice) if isinstance(kind, str) else None
        if name is not None:
            return name
        if kind == "allowed_tools":
            mode = choice.get("mode") or (choice.get("allowed_tools") or {}).get("mode")
            return str(mode or "auto")
        return "auto"

    @cached
    def metadata(self) -> Mapping[str, str]:
        return self.body.get("metadata") or {}

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        """`response_format`: a `json_schema`'s schema (an object when it gives none), or any
        object for `json_object`."""
        form = self.chat.response_format
        if isinstance(form, JsonSchemaResponseFormat):
            return form.json_schema.schema_ if form.json_schema.schema_ is not None else {"type": "object"}
        if isinstance(form, JsonObjectResponseFormat):
            return JSON_OBJECT_SCHEMA
        return None

    @cached
    def web_search(self) -> bool:
        return self.chat.web_search_options is not None

    def passback_findings(self, shape: str, signer: Signer, *, require_all: bool = False) -> list[str]:
        return reasoning_findings(self.messages, shape, signer, require_all=require_all)
