"""The generateContent body, validated as Google's API takes it: camelCase (and, as Google's JSON
parser does, snake_case) keys, the documented part kinds, roles and limits. A failure is ZenMux's
400 `invalid_params` naming the offending field by its path, as `generationConfig.stopSequences`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, JsonValue, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from zenmux_emulator.faces.common.counts import ConversationCaps, Overlong
from zenmux_emulator.faces.common.json_schema import schema_problem
from zenmux_emulator.faces.common.validation import StrictModel, at_least, between, locate_error, not_valid
from zenmux_emulator.faces.vertex.schema import json_schema
from zenmux_emulator.foundation.errors import invalid_params

MAX_STOP_SEQUENCES = 5
PART_KINDS = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
)
"""The kinds of data a part holds, one each (Gemini 3's `toolCall` / `toolResponse` are its built-in
tools' calls and results, passed back in the history as they came)."""


def _google_schema(schema: dict[str, Any]) -> dict[str, Any]:
    problem = schema_problem(json_schema(schema))
    if problem is not None:
        raise not_valid(problem)
    return schema


GoogleSchema = Annotated[dict[str, Any], AfterValidator(_google_schema)]
"""A schema as Google takes it (`parameters`, `responseSchema`, and their `…JsonSchema` twins), valid
once read as JSON Schema (see `schema`)."""


class Wire(StrictModel):
    """A Google JSON message: camelCase keys, snake_case accepted too."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Blob(Wire):
    mime_type: str
    data: str


class FileData(Wire):
    mime_type: str | None = None
    file_uri: str


class FunctionCall(Wire):
    id: str | None = None
    name: Annotated[str, Field(min_length=1)]
    args: dict[str, JsonValue] | None = None


class FunctionResponse(Wire):
    id: str | None = None
    name: Annotated[str, Field(min_length=1)]
    response: dict[str, JsonValue]


class Part(Wire):
    text: str | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    executable_code: dict[str, JsonValue] | None = None
    code_execution_result: dict[str, JsonValue] | None = None
    tool_call: dict[str, JsonValue] | None = None
    tool_response: dict[str, JsonValue] | None = None
    thought: bool | None = None
    thought_signature: str | None = None
    video_metadata: dict[str, JsonValue] | None = None
    media_resolution: dict[str, JsonValue] | None = None
    part_metadata: dict[str, JsonValue] | None = None

    @model_validator(mode="after")
    def one_kind(self) -> Part:
        kinds = [kind for kind, field in _PART_FIELDS if getattr(self, field) is not None]
        if len(kinds) > 1:
            raise ValueError(f"a part holds one kind of data, this one holds {' and '.join(kinds)}")
        if (
            not kinds and self.thought_signature is None and not self.thought
        ):  # an empty thought: google-genai's chat sends it back
            raise ValueError(f"a part needs one of {', '.join(PART_KINDS)}")
        return self


class Content(Wire):
    role: Literal["user", "model", "function", "tool"] | None = None
    parts: list[Part]


class FunctionDeclaration(Wire):
    name: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z_][A-Za-z0-9_.:-]*$")]
    description: str | None = None
    parameters: GoogleSchema | None = None
    parameters_json_schema: GoogleSchema | None = None
    response: GoogleSchema | None = None
    response_json_schema: GoogleSchema | None = None


class Tool(Wire):
    function_declarations: list[FunctionDeclaration] | None = None
    google_search: dict[str, JsonValue] | None = None
    google_search_retrieval: dict[str, JsonValue] | None = None
    code_execution: dict[str, JsonValue] | None = None
    url_context: dict[str, JsonValue] | None = None


class FunctionCallingConfig(Wire):
    mode: Literal["AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"] | None = None
    allowed_function_names: list[str] | None = None


class ToolConfig(Wire):
    function_calling_config: FunctionCallingConfig | None = None


class SafetySetting(Wire):
    category: str
    threshold: str


class ThinkingConfig(Wire):
    include_thoughts: bool | None = None
    thinking_budget: Annotated[int, at_least(-1, "an integer")] | None = None
    thinking_level: (
        Literal["MINIMAL", "LOW", "MEDIUM", "HIGH", "THINKING_LEVEL_UNSPECIFIED", "minimal", "low", "medium", "high"]
        | None
    ) = None


class GenerationConfig(Wire):
    temperature: Annotated[float, between(0, 2)] | None = None
    top_p: Annotated[float, between(0, 1)] | None = None
    top_k: Annotated[float, at_least(1)] | None = None
    candidate_count: Annotated[int, between(1, 1, "an integer")] | None = None
    max_output_tokens: Annotated[int, at_least(1, "an integer")] | None = None
    stop_sequences: Annotated[list[str], Field(max_length=MAX_STOP_SEQUENCES)] | None = None
    presence_penalty: Annotated[float, between(-2, 2)] | None = None
    frequency_penalty: Annotated[float, between(-2, 2)] | None = None
    seed: int | None = None
    response_mime_type: str | None = None
    response_schema: GoogleSchema | None = None
    response_json_schema: GoogleSchema | None = None
    response_logprobs: bool | None = None
    logprobs: int | None = None
    response_modalities: list[str] | None = None
    thinking_config: ThinkingConfig | None = None
    media_resolution: str | None = None
    speech_config: dict[str, JsonValue] | None = None
    image_config: dict[str, JsonValue] | None = None


class GenerateContentRequest(Wire):
    model: str | None = None
    contents: Annotated[list[Content], Field(min_length=1)]
    system_instruction: Content | None = None
    tools: list[Tool] | None = None
    tool_config: ToolConfig | None = None
    safety_settings: list[SafetySetting] | None = None
    cached_content: str | None = None
    generation_config: GenerationConfig | None = None
    labels: dict[str, str] | None = None


class CountTokensRequest(Wire):
    """`countTokens`: the conversation alone, or a whole `generateContentRequest` (Gemini API)."""

    contents: list[Content] | None = None
    system_instruction: Content | None = None
    tools: list[Tool] | None = None
    generate_content_request: GenerateContentRequest | None = None
    generation_config: GenerationConfig | None = None


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


_PART_FIELDS = tuple((kind, _snake(kind)) for kind in PART_KINDS)
"""Each kind of part with its field's name, worked out once (every part is checked for every kind)."""


def _camel_path(path: list[str | int]) -> str:
    text = ""
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        else:
            text += ("." if text else "") + to_camel(segment)
    return text


def problem(exc: ValidationError, body: object) -> str:
    """The first error as `path: message`, the path in the request's camelCase."""
    first = exc.errors(include_url=False)[0]
    located = locate_error(first["loc"], body, missing=first["type"] == "missing")
    path = _camel_path(located.path)
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{path}: {message}" if path else message


CAPS = ConversationCaps(
    "contents", ("parts",), beside=(("systemInstruction", "parts"), ("system_instruction", "parts"))
)
"""The contents a request may hold, and their parts in all, the system instruction's among them (see `counts`)."""


def _overlong(prefix: str) -> Callable[[Overlong], str]:
    """The words for an array past its cap, its path after `prefix` (countTokens's inner request)."""

    def say(overlong: Overlong) -> str:
        if not overlong.parts:
            return f"{prefix}contents: at most {overlong.limit} contents are allowed (the emulator's limit), got {overlong.count}"
        return (
            f"{prefix}{_camel_path(list(overlong.path))}: at most {overlong.limit} parts are allowed in all "
            f"contents and the system instruction together (the emulator's limit), and this one brings them "
            f"to {overlong.count}"
        )

    return say


def validate(body: object, model: type[Wire] = GenerateContentRequest, body_bytes: int | None = None) -> Any:
    """The validated request (of `body_bytes` bytes of JSON, when known); ZenMux's 400 naming the
    field otherwise."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    CAPS.refuse_overlong(body, _overlong(""), body_bytes)
    inner = body.get("generateContentRequest", body.get("generate_content_request"))
    if isinstance(inner, dict):  # countTokens's whole request
        CAPS.refuse_overlong(inner, _overlong("generateContentRequest."), body_bytes)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise invalid_params(problem(exc, body)) from None
