"""Step 2 of the request flow: a parsed JSON body becomes a validated `ChatCompletionRequest`."""

from zenmux_emulator.faces.common.chat_parts import CustomToolCall, FunctionToolCall

from .messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningDetail,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .request import ChatCompletionRequest, ValidatedRequest, validate_request
from .tools import CustomTool, FunctionTool

__all__ = [
    "AssistantMessage",
    "ChatCompletionRequest",
    "CustomTool",
    "CustomToolCall",
    "DeveloperMessage",
    "FunctionTool",
    "FunctionToolCall",
    "Message",
    "ReasoningDetail",
    "SystemMessage",
    "ToolMessage",
    "UserMessage",
    "ValidatedRequest",
    "validate_request",
]
