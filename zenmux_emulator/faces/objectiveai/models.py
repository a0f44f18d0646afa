"""Pydantic models of a Query request's parts (§2.1): messages (over the chat parts faces/common
shares with the chat face; the audio part is this API's own), Query LLM, Query Model, options."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field

from zenmux_emulator.faces.common.chat_parts import FilePart, FunctionToolCall, ImagePart, RefusalPart, TextPart
from zenmux_emulator.faces.common.json_schema import JsonSchema as ToolSchema
from zenmux_emulator.faces.common.validation import TAG, StrictModel, by_key, by_shape, tag


class InputAudio(StrictModel):
    data: str
    format: Literal["wav", "mp3"]


class AudioPart(StrictModel):
    type: Literal["input_audio", "audio_url"]
    input_audio: InputAudio


_TEXT_PARTS = "expected a part of type 'text'"
TextParts = list[Annotated[Annotated[TextPart, tag("text")], by_key("type", _TEXT_PARTS)]]
UserPart = Annotated[
    Annotated[TextPart, tag("text")]
    | Annotated[ImagePart, tag("image_url")]
    | Annotated[AudioPart, tag("input_audio")]
    | Annotated[AudioPart, tag("audio_url")]
    | Annotated[FilePart, tag("file")],
    by_key("type", "expected one of 'text', 'image_url', 'input_audio', 'audio_url', 'file'"),
]
AssistantPart = Annotated[
    Annotated[TextPart, tag("text")] | Annotated[RefusalPart, tag("refusal")],
    by_key("type", "expected one of 'text', 'refusal'"),
]
_STRING_OR_PARTS = "expected a string or an array of content parts"
TextContent = Annotated[Annotated[str, tag("string")] | Annotated[TextParts, tag("array")], by_shape(_STRING_OR_PARTS)]


class SystemMessage(StrictModel):
    role: Literal["system", "developer"]
    content: TextContent
    name: str | None = None


class UserMessage(StrictModel):
    role: Literal["user"]
    content: Annotated[
        Annotated[str, tag("string")] | Annotated[list[UserPart], tag("array")], by_shape(_STRING_OR_PARTS)
    ]
    name: str | None = None


class AssistantMessage(StrictModel):
    role: Literal["assistant"]
    content: (
        Annotated[
            Annotated[str, tag("string")] | Annotated[list[AssistantPart], tag("array")], by_shape(_STRING_OR_PARTS)
        ]
        | None
    ) = None
    refusal: str | None = None
    tool_calls: list[FunctionToolCall] | None = None
    name: str | None = None


class ToolMessage(StrictModel):
    role: Literal["tool"]
    content: TextContent
    tool_call_id: str


Message = Annotated[
    Annotated[SystemMessage, tag("system")]
    | Annotated[SystemMessage, tag("developer")]
    | Annotated[UserMessage, tag("user")]
    | Annotated[AssistantMessage, tag("assistant")]
    | Annotated[ToolMessage, tag("tool")],
    by_key("role", "expected one of 'developer', 'system', 'user', 'assistant', 'tool'"),
]


class TextFormat(StrictModel):
    type: Literal["text"]


class JsonObjectFormat(StrictModel):
    type: Literal["json_object"]


class JsonSchema(StrictModel):
    name: str
    description: str | None = None
    strict: bool | None = None
    schema_: ToolSchema | None = Field(default=None, alias="schema")


class JsonSchemaFormat(StrictModel):
    type: Literal["json_schema"]
    json_schema: JsonSchema


ResponseFormat = Annotated[
    Annotated[TextFormat, tag("text")]
    | Annotated[JsonObjectFormat, tag("json_object")]
    | Annotated[JsonSchemaFormat, tag("json_schema")],
    by_key("type", "expected one of 'text', 'json_object', 'json_schema'"),
]


class FunctionDef(StrictModel):
    name: str
    description: str | None = None
    parameters: ToolSchema | None = None
    strict: bool | None = None


class Tool(StrictModel):
    type: Literal["function"]
    function: FunctionDef


class PredictionObject(StrictModel):
    type: Literal["content"]
    content: TextContent


class StreamOptions(StrictModel):
    include_usage: bool | None = None


class UsageOptions(StrictModel):
    include: bool | None = None


class QueryBody(StrictModel):
    """The request's fields except `model`, which `wire` resolves on its own."""

    messages: Annotated[list[Message], Field(min_length=1)]
    logprobs: bool | None = None
    n: Annotated[int, Field(ge=1, le=16)] = 1
    prediction: (
        Annotated[
            Annotated[str, tag("string")] | Annotated[PredictionObject, tag("object")],
            Discriminator(lambda v: TAG + ("string" if isinstance(v, str) else "object")),
        ]
        | None
    ) = None
    response_format: ResponseFormat | None = None
    seed: int | None = None
    service_tier: Literal["auto", "default", "flex"] | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[Tool] | None = None
    top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    usage: UsageOptions | None = None
    embeddings: str | None = None
    select_deterministic: bool | None = None


KNOWN_FIELDS = frozenset(QueryBody.model_fields) | {"model"}
