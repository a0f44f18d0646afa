"""Pydantic models of a Query request's parts (§2.1): messages, Query LLM, Query Model, options."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

_TAG = "§"  # prefix of union tags, dropped from error paths
BAD_TAG = "bad_tag:"  # error type of a missing or unknown union tag, then the key


def _tagged(key: str) -> Any:
    def pick(value: Any) -> str | None:
        found = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
        return f"{_TAG}{found}" if isinstance(found, str) else None

    return pick


def _shape(value: Any) -> str | None:
    return f"{_TAG}string" if isinstance(value, str) else f"{_TAG}array" if isinstance(value, list) else None


def by_key(key: str, expected: str) -> Discriminator:
    """A union chosen by the string at `key`; a missing or unknown one fails as `expected`."""
    return Discriminator(_tagged(key), custom_error_type=f"{BAD_TAG}{key}", custom_error_message=expected)


def by_shape(expected: str) -> Discriminator:
    """A `string | array` union chosen by JSON type."""
    return Discriminator(_shape, custom_error_type="bad_shape", custom_error_message=expected)


def tag(name: str) -> Tag:
    return Tag(f"{_TAG}{name}")


class Wire(BaseModel):
    """Base of the request models: strict JSON types, unknown keys ignored, immutable."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, allow_inf_nan=False,
                              protected_namespaces=())


Unit = Annotated[float, Field(ge=0, le=1)]
Penalty = Annotated[float, Field(ge=-2, le=2)]
Positive = Annotated[int, Field(ge=1)]
Effort = Literal["low", "medium", "high"]


class TextPart(Wire):
    type: Literal["text"]
    text: str


class RefusalPart(Wire):
    type: Literal["refusal"]
    refusal: str


class ImageUrl(Wire):
    url: str
    detail: Literal["auto", "low", "high"] | None = None


class ImagePart(Wire):
    type: Literal["image_url"]
    image_url: ImageUrl


class InputAudio(Wire):
    data: str
    format: Literal["wav", "mp3"]


class AudioPart(Wire):
    type: Literal["input_audio", "audio_url"]
    input_audio: InputAudio


class FileData(Wire):
    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class FilePart(Wire):
    type: Literal["file"]
    file: FileData


_TEXT_PARTS = "expected a part of type 'text'"
TextParts = list[Annotated[Annotated[TextPart, tag("text")], by_key("type", _TEXT_PARTS)]]
UserPart = Annotated[
    Annotated[TextPart, tag("text")] | Annotated[ImagePart, tag("image_url")]
    | Annotated[AudioPart, tag("input_audio")] | Annotated[AudioPart, tag("audio_url")]
    | Annotated[FilePart, tag("file")],
    by_key("type", "expected one of 'text', 'image_url', 'input_audio', 'audio_url', 'file'"),
]
AssistantPart = Annotated[
    Annotated[TextPart, tag("text")] | Annotated[RefusalPart, tag("refusal")],
    by_key("type", "expected one of 'text', 'refusal'"),
]
_STRING_OR_PARTS = "expected a string or an array of content parts"
TextContent = Annotated[Annotated[str, tag("string")] | Annotated[TextParts, tag("array")], by_shape(_STRING_OR_PARTS)]


class Function(Wire):
    name: str
    arguments: str


class ToolCall(Wire):
    id: str
    type: Literal["function"]
    function: Function


class SystemMessage(Wire):
    role: Literal["system", "developer"]
    content: TextContent
    name: str | None = None


class UserMessage(Wire):
    role: Literal["user"]
    content: Annotated[Annotated[str, tag("string")] | Annotated[list[UserPart], tag("array")],
                       by_shape(_STRING_OR_PARTS)]
    name: str | None = None


class AssistantMessage(Wire):
    role: Literal["assistant"]
    content: Annotated[Annotated[str, tag("string")] | Annotated[list[AssistantPart], tag("array")],
                       by_shape(_STRING_OR_PARTS)] | None = None
    refusal: str | None = None
    tool_calls: list[ToolCall] | None = None
    name: str | None = None


class ToolMessage(Wire):
    role: Literal["tool"]
    content: TextContent
    tool_call_id: str


Message = Annotated[
    Annotated[SystemMessage, tag("system")] | Annotated[SystemMessage, tag("developer")]
    | Annotated[UserMessage, tag("user")] | Annotated[AssistantMessage, tag("assistant")]
    | Annotated[ToolMessage, tag("tool")],
    by_key("role", "expected one of 'developer', 'system', 'user', 'assistant', 'tool'"),
]


class ProviderPrefs(Wire):
    order: list[str] | None = None
    allow_fallbacks: bool | None = None
    require_parameters: bool | None = None
    data_collection: Literal["allow", "deny"] | None = None
    only: list[str] | None = None
    ignore: list[str] | None = None
    quantizations: list[str] | None = None
    sort: str | None = None


class ReasoningPrefs(Wire):
    max_tokens: Positive | None = None
    effort: Effort | None = None
    enabled: bool | None = None


class StaticLlmWeight(Wire):
    type: Literal["static"]
    weight: float


class TrainingLlmWeight(Wire):
    type: Literal["training_table"]
    base_weight: float
    min_weight: float
    max_weight: float


_WEIGHT_TYPES = "expected one of 'static', 'training_table'"
LlmWeight = Annotated[
    Annotated[StaticLlmWeight, tag("static")] | Annotated[TrainingLlmWeight, tag("training_table")],
    by_key("type", _WEIGHT_TYPES),
]
Mode = Literal["generate", "select_thinking", "select_non_thinking", "select_thinking_logprobs",
               "select_non_thinking_logprobs"]


class QueryLlm(Wire):
    """One LLM of a Query Model (sampling parameters live here, not on the request)."""

    id: str
    mode: Mode
    select_top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    frequency_penalty: Penalty | None = None
    presence_penalty: Penalty | None = None
    logit_bias: dict[str, float] | None = None
    max_completion_tokens: Positive | None = None
    max_tokens: Positive | None = None
    reasoning_effort: Effort | None = None
    stop: Annotated[Annotated[str, tag("string")] | Annotated[list[str], tag("array")],
                    by_shape("expected a string or an array of strings")] | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Unit | None = None
    min_p: Unit | None = None
    top_a: Unit | None = None
    repetition_penalty: Annotated[float, Field(ge=0, le=2)] | None = None
    top_k: Positive | None = None
    provider: ProviderPrefs | None = None
    reasoning: ReasoningPrefs | None = None
    verbosity: Effort | None = None
    models: list[str] | None = None
    weight: LlmWeight
    tool_response_format: Any = None

    @property
    def is_select(self) -> bool:
        return self.mode != "generate"


class StaticModelWeight(Wire):
    type: Literal["static"]


class TrainingModelWeight(Wire):
    type: Literal["training_table"]
    embeddings_model: str
    top: Positive


class QueryModel(Wire):
    """A Query Model: its LLMs and how their weights are found."""

    models: Annotated[list[QueryLlm], Field(min_length=1)]
    weight: Annotated[
        Annotated[StaticModelWeight, tag("static")] | Annotated[TrainingModelWeight, tag("training_table")],
        by_key("type", _WEIGHT_TYPES),
    ]
    select_generated_reasoning: Any = None


class TextFormat(Wire):
    type: Literal["text"]


class JsonObjectFormat(Wire):
    type: Literal["json_object"]


class JsonSchema(Wire):
    name: str
    description: str | None = None
    strict: bool | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")


class JsonSchemaFormat(Wire):
    type: Literal["json_schema"]
    json_schema: JsonSchema


ResponseFormat = Annotated[
    Annotated[TextFormat, tag("text")] | Annotated[JsonObjectFormat, tag("json_object")]
    | Annotated[JsonSchemaFormat, tag("json_schema")],
    by_key("type", "expected one of 'text', 'json_object', 'json_schema'"),
]


class FunctionDef(Wire):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class Tool(Wire):
    type: Literal["function"]
    function: FunctionDef


class PredictionObject(Wire):
    type: Literal["content"]
    content: TextContent


class StreamOptions(Wire):
    include_usage: bool | None = None


class UsageOptions(Wire):
    include: bool | None = None


class QueryBody(Wire):
    """The request's fields except `model`, which `wire` resolves on its own."""

    messages: Annotated[list[Message], Field(min_length=1)]
    logprobs: bool | None = None
    n: Annotated[int, Field(ge=1, le=16)] = 1
    prediction: Annotated[Annotated[str, tag("string")] | Annotated[PredictionObject, tag("object")],
                          Discriminator(lambda v: f"{_TAG}string" if isinstance(v, str) else f"{_TAG}object")
                          ] | None = None
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
