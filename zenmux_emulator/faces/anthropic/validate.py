"""The Messages request validated whole, with Anthropic's messages: `messages.1.content.0.type: …`.

Pydantic models say what each field may be; `problem()` turns pydantic's first error into the
path Anthropic names (union branches and block tags left out), and `conversation()` checks what
one message says about the next (tool results answer the previous message's tool uses).
Blocks keep unknown fields (clients pass back what they were sent); the top level keeps them too
and they are said back as warnings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from zenmux_emulator.faces.common.counts import ANTHROPIC_MESSAGES, ConversationCaps, Overlong
from zenmux_emulator.faces.common.json_schema import JsonSchema
from zenmux_emulator.faces.common.zenmux import effort_warnings
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

_OPEN = ConfigDict(extra="allow")
_CLOSED = ConfigDict(extra="forbid")


class CacheControl(BaseModel):
    model_config = _CLOSED
    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class _Block(BaseModel):
    model_config = _OPEN
    cache_control: CacheControl | None = None


class TextBlock(_Block):
    type: Literal["text"]
    text: str
    citations: list[dict[str, Any]] | None = None


class ImageBlock(_Block):
    type: Literal["image"]
    source: dict[str, Any]


class DocumentBlock(_Block):
    type: Literal["document"]
    source: dict[str, Any]


class ToolUseBlock(_Block):
    type: Literal["tool_use"]
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    input: dict[str, Any]


class ToolResultBlock(_Block):
    type: Literal["tool_result"]
    tool_use_id: str = Field(min_length=1)
    content: (
        str | list[Annotated[TextBlock | ImageBlock | DocumentBlock | OtherBlock, Field(discriminator="type")]] | None
    ) = None
    is_error: bool | None = None


class ThinkingBlock(_Block):
    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(_Block):
    type: Literal["redacted_thinking"]
    data: str


class OtherBlock(_Block):
    """Blocks of server tools and newer features: accepted as sent."""

    type: Literal[
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "search_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "tool_reference",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
        "compaction",
    ]


ToolResultBlock.model_rebuild()

Block = Annotated[
    TextBlock
    | ImageBlock
    | DocumentBlock
    | ToolUseBlock
    | ToolResultBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | OtherBlock,
    Field(discriminator="type"),
]
TAGS = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "custom",
        "server",
        "auto",
        "any",
        "tool",
        "none",
        "enabled",
        "disabled",
        "adaptive",
        *OtherBlock.model_fields["type"].annotation.__args__,  # type: ignore[union-attr]
    }
)
"""Tags pydantic puts in an error's path after a list index; Anthropic's paths leave them out."""


class Message(BaseModel):
    model_config = _CLOSED
    role: Literal["user", "assistant", "system"]
    """`system` inside `messages`: Claude Code sends one (the mid-conversation-system beta)."""
    content: str | list[Block]


class CustomTool(BaseModel):
    model_config = _OPEN
    type: Literal["custom"] | None = None
    name: str = Field(min_length=1, max_length=128, pattern=r"^[a-zA-Z0-9_-]{1,128}$")
    description: str | None = None
    input_schema: JsonSchema
    cache_control: CacheControl | None = None


class ServerTool(BaseModel):
    """`web_search_20250305`, `bash_20250124`, `text_editor_…`, `code_execution_…`, …: accepted as sent."""

    model_config = _OPEN
    type: str
    name: str = Field(min_length=1)
    cache_control: CacheControl | None = None


def _tool_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return "custom" if kind in (None, "custom") else "server"


Tool = Annotated[Annotated[CustomTool, Tag("custom")] | Annotated[ServerTool, Tag("server")], Discriminator(_tool_kind)]


class _Choice(BaseModel):
    model_config = _CLOSED
    disable_parallel_tool_use: bool | None = None


class AutoChoice(_Choice):
    type: Literal["auto"]


class AnyChoice(_Choice):
    type: Literal["any"]


class ToolChoiceTool(_Choice):
    type: Literal["tool"]
    name: str = Field(min_length=1)


class NoneChoice(BaseModel):
    model_config = _CLOSED
    type: Literal["none"]


ToolChoice = Annotated[AutoChoice | AnyChoice | ToolChoiceTool | NoneChoice, Field(discriminator="type")]


class ThinkingEnabled(BaseModel):
    model_config = _CLOSED
    type: Literal["enabled"]
    budget_tokens: int = Field(ge=1024)
    display: Literal["summarized", "omitted"] | None = None


class ThinkingDisabled(BaseModel):
    model_config = _CLOSED
    type: Literal["disabled"]


class ThinkingAdaptive(BaseModel):
    model_config = _CLOSED
    type: Literal["adaptive"]
    display: Literal["summarized", "omitted"] | None = None


Thinking = Annotated[ThinkingEnabled | ThinkingDisabled | ThinkingAdaptive, Field(discriminator="type")]


class Metadata(BaseModel):
    model_config = _CLOSED
    user_id: str | None = Field(None, max_length=512)


EFFORTS = ("low", "medium", "high", "xhigh", "max")


class OutputConfig(BaseModel):
    model_config = _OPEN
    effort: str | None = None
    """One of EFFORTS, or a newer value (accepted with a warning)."""
    format: dict[str, Any] | None = None


class MessagesRequest(BaseModel):
    """`POST /v1/messages` (and, without `max_tokens`, `count_tokens`)."""

    model_config = _OPEN
    model: str = Field(min_length=1, max_length=256)
    max_tokens: int = Field(ge=1)
    messages: list[Message]
    system: str | list[TextBlock] | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    thinking: Thinking | None = None
    stop_sequences: list[str] | None = None
    temperature: float | None = Field(None, ge=0, le=1)
    top_p: float | None = Field(None, ge=0, le=1)
    top_k: int | None = Field(None, ge=0)
    metadata: Metadata | None = None
    stream: bool | None = None
    output_config: OutputConfig | None = None
    context_management: dict[str, Any] | None = None
    service_tier: Literal["auto", "standard_only"] | None = None


class CountTokensRequest(MessagesRequest):
    max_tokens: int | None = Field(None, ge=1)  # type: ignore[assignment]


DOCUMENTED = frozenset(
    {
        *MessagesRequest.model_fields,
        "container",
        "mcp_servers",
        "inference_geo",
        "speed",
        "cache_control",
        "diagnostics",
        "compaction",
        "fallbacks",
        "billing_policy",
        "thread",
        "prefill",
        "output_format",
    }
)
"""Top-level fields of Anthropic's Messages API (some only with a beta): accepted silently."""


def _path(loc: Sequence[int | str]) -> str:
    """Pydantic's location as Anthropic writes it: no union branch names, no block tags."""
    parts: list[str] = []
    previous: int | str | None = None
    for part in loc:
        branch = isinstance(part, str) and (part in ("str", "none") or "[" in part)
        tag = (
            isinstance(part, str)
            and part in TAGS
            and (isinstance(previous, int) or previous in ("tool_choice", "thinking"))
        )
        if not branch and not tag:
            parts.append(str(part))
        previous = part
    return ".".join(parts)


def _rank(error: Mapping[str, Any], body: object) -> int:
    """Prefer the error of the union branch the input took: a list's errors when a list was sent."""
    loc = error["loc"]
    value: Any = body
    for part in loc:
        if isinstance(part, str) and ("[" in part or part in ("str", "none")):
            sent_list = isinstance(value, list)
            if (part == "str" and sent_list) or (part.startswith("list[") and not sent_list):
                return 1
            continue
        if isinstance(value, dict) and isinstance(part, str):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        elif isinstance(part, str) and part in TAGS:
            continue
        else:
            break
    return 0


def problem(exc: ValidationError, body: object) -> str:
    """The first error as Anthropic words it: `path: message`."""
    errors = sorted(exc.errors(include_url=False), key=lambda e: _rank(e, body))
    first = errors[0]
    path = _path(first["loc"])
    message = str(first["msg"])
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        path = f"{path}.type" if path else "type"
        if first["type"] == "union_tag_not_found":
            message = "Field required"
    return f"{path}: {message}" if path else message


def _tool_uses(message: Message) -> list[str]:
    if isinstance(message.content, str):
        return []
    return [b.id for b in message.content if isinstance(b, ToolUseBlock)]


def conversation(messages: Sequence[Message]) -> None:
    """Anthropic's rules across messages: at least one; tool uses only from the assistant, tool
    results only from the user, each answering a tool use of the previous (non-system) message."""
    if not messages:
        raise invalid_params("messages: at least one message is required")
    previous: Message | None = None
    for i, message in enumerate(messages):
        blocks = [] if isinstance(message.content, str) else message.content
        for n, block in enumerate(blocks):
            kind = block.type
            if message.role != "assistant" and kind in ("tool_use", "thinking", "redacted_thinking", "server_tool_use"):
                raise invalid_params(
                    f"messages.{i}.content.{n}.type: `{kind}` blocks are only allowed in `assistant` messages"
                )
            if message.role != "user" and kind == "tool_result":
                raise invalid_params(
                    f"messages.{i}.content.{n}.type: `tool_result` blocks are only allowed in `user` messages"
                )
        if message.role == "system":
            continue
        offered = set(_tool_uses(previous)) if previous is not None and previous.role == "assistant" else set()
        answered = [b.tool_use_id for b in blocks if isinstance(b, ToolResultBlock)]
        stray = [a for a in answered if a not in offered]
        if stray:
            raise invalid_params(
                f"messages.{i}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {stray[0]}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
            )
        missing = (
            [o for o in _tool_uses(previous) if o not in answered]
            if previous is not None and previous.role == "assistant"
            else []
        )
        if missing:
            raise invalid_params(
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{missing[0]}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
                "message."
            )
        previous = message


def _tool_choice(request: MessagesRequest) -> None:
    """A choice of `any` or of one tool needs tools, and the named tool must be one of them."""
    choice = request.tool_choice
    if not isinstance(choice, AnyChoice | ToolChoiceTool):
        return
    if not request.tools:
        raise invalid_params(f"tool_choice.{choice.type} may only be specified while providing tools")
    if isinstance(choice, ToolChoiceTool) and all(tool.name != choice.name for tool in request.tools):
        raise invalid_params(f"tool_choice.name: tool `{choice.name}` is not one of the tools provided")


CAPS = ConversationCaps("messages", ("content",), items=ANTHROPIC_MESSAGES, inner="content", beside=(("system",),))
"""Anthropic's 100,000 messages, and the emulator's cap on their content blocks in all (a tool
result's blocks and the system prompt's among them, see `counts`)."""


def _overlong(overlong: Overlong) -> str:
    """Pydantic's words for a list too long, as Anthropic's API says them; the emulator's own for blocks."""
    if not overlong.parts:
        return f"messages: List should have at most {overlong.limit} items after validation, not {overlong.count}"
    where = ".".join(str(step) for step in overlong.path)
    return (
        f"{where}: too many content blocks: at most {overlong.limit} are allowed in all messages and the "
        f"system prompt together (the emulator's limit), and this one brings them to {overlong.count}"
    )


def validate(
    body: object, model: type[MessagesRequest] = MessagesRequest, body_bytes: int | None = None
) -> tuple[MessagesRequest, tuple[str, ...]]:
    """The validated request and the warnings about fields the emulator does not know; 400 otherwise.
    `body_bytes` is the size of the JSON the body came from (None: not known, or made up)."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    CAPS.refuse_overlong(body, _overlong, body_bytes)
    try:
        request = model.model_validate(body)
    except ValidationError as exc:
        raise invalid_params(problem(exc, body)) from None
    conversation(request.messages)
    _tool_choice(request)
    if (
        isinstance(request.thinking, ThinkingEnabled)
        and request.max_tokens is not None
        and request.thinking.budget_tokens >= request.max_tokens
    ):
        raise invalid_params(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
            "#max-tokens-and-context-window-size"
        )
    unknown = sorted(set(body) - DOCUMENTED)
    warnings = tuple(f"{name}: not a Messages API field the emulator knows; ignored" for name in unknown)
    effort = request.output_config.effort if request.output_config is not None else None
    return request, warnings + effort_warnings(EFFORTS, output_config__effort=effort)


__all__ = ["CountTokensRequest", "MessagesRequest", "RequestRejected", "validate"]
