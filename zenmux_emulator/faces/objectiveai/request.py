"""A Query request as the core reads it: `QueryAsk`, the facts of its messages over a `QueryRequest`.

The messages are chat messages, so the facts are read the chat face's way. The model the core
routes, admits and journals is `objectiveai/<Query Model id>`, the response's top-level `model`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import ToolOptions, ToolResult, cached
from zenmux_emulator.faces.common.chat_messages import ChatMessagesRequest, content_text, tool_name, tool_options

from .wire import QueryRequest


class QueryAsk(ChatMessagesRequest):
    """`POST /objectiveai/query/completions`: the validated `QueryRequest`, and the facts of its messages."""

    face = "objectiveai"

    def __init__(self, query: QueryRequest, headers: Mapping[str, str]) -> None:
        super().__init__(
            query.raw, headers, f"objectiveai/{query.model_id}", stream=query.body.stream, warnings=query.warnings
        )
        self.query = query
        self.messages: list[dict[str, Any]] = query.raw["messages"]

    @cached
    def tool_options(self) -> ToolOptions:
        return tool_options(self.body, None)

    @cached
    def stated_tool_choice(self) -> str | None:
        return None  # a Query request has no tool_choice

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.messages or self.messages[-1].get("role") != "tool":
            return None
        last = self.messages[-1]
        call_id = last.get("tool_call_id")
        name = next(
            (
                tool_name(call)
                for m in reversed(self.messages)
                for call in m.get("tool_calls") or ()
                if isinstance(call, dict) and call.get("id") == call_id
            ),
            None,
        )
        return name or "", content_text(last.get("content"))

    @cached
    def metadata(self) -> Mapping[str, str]:
        return {}

    @cached
    def query_model(self) -> str:
        return self.query.model_id

    @cached
    def query_llms(self) -> tuple[str, ...]:
        return tuple(llm.id for llm in self.query.model.models)
