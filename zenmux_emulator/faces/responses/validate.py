"""A `POST /api/v1/responses` body checked against OpenAI's Responses request (pydantic), with
OpenAI's wording for what is wrong (`Missing required parameter: 'input[1].call_id'.`) in
ZenMux's 400 `invalid_params` envelope.

Fields ZenMux lists as unsupported on this API (`service_tier`, `user`, `background`, `metadata`)
and fields the emulator does not read are accepted and named in the warnings, as on the chat face;
so are hosted tools ZenMux does not support (code interpreter, image generation, file search) and
tool or item types the emulator does not act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, ValidationError
from pydantic_core import ErrorDetails

from zenmux_emulator.faces.common.counts import ConversationCaps, Overlong
from zenmux_emulator.faces.common.json_schema import JsonSchema
from zenmux_emulator.faces.common.validation import (
    WRONG_SHAPE,
    StrictModel,
    by_key,
    by_shape,
    locate_error,
    tag,
    tag_names,
)
from zenmux_emulator.faces.common.zenmux import (
    EFFORTS,
    Effort,
    ModelRoutingConfig,
    ProviderOptions,
    check_provider_routing,
    effort_warnings,
)
from zenmux_emulator.foundation.errors import invalid_params

UNSUPPORTED = ("service_tier", "user", "background", "metadata")
"""Listed by ZenMux as unsupported on the Responses API: accepted, ignored, warned about."""
UNSUPPORTED_TOOLS = ("code_interpreter", "image_generation", "file_search")
"""Hosted tools ZenMux does not support: accepted, not offered to the rules, warned about."""
ACTED_ON_TOOLS = ("function", "custom", "namespace")
MIN_OUTPUT_TOKENS = 16


KNOWN_ITEMS = (
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "custom_tool_call",
    "custom_tool_call_output",
)
"""The item types the emulator reads; any other string type is an `OtherItem`, kept and not read."""


# --- content parts and input items ----------------------------------------------------------------


class InputText(StrictModel):
    type: Literal["input_text"]
    text: str


class InputImage(StrictModel):
    type: Literal["input_image"]
    image_url: str | None = None
    file_id: str | None = None
    detail: Literal["low", "high", "auto", "original"] | None = None


class InputFile(StrictModel):
    type: Literal["input_file"]
    file_id: str | None = None
    file_data: str | None = None
    file_url: str | None = None
    filename: str | None = None


class InputAudio(StrictModel):
    type: Literal["input_audio"]
    input_audio: dict[str, Any]


class OutputText(StrictModel):
    type: Literal["output_text"]
    text: str
    annotations: list[dict[str, Any]] | None = None


class Refusal(StrictModel):
    type: Literal["refusal"]
    refusal: str


ContentPart = Annotated[
    Annotated[InputText, tag("input_text")]
    | Annotated[InputImage, tag("input_image")]
    | Annotated[InputFile, tag("input_file")]
    | Annotated[InputAudio, tag("input_audio")]
    | Annotated[OutputText, tag("output_text")]
    | Annotated[Refusal, tag("refusal")],
    by_key("type", default=""),
]
Content = Annotated[
    Annotated[str, tag("string")] | Annotated[list[ContentPart], tag("array")],
    by_shape("a string or an array of content parts"),
]
ToolOutput = Annotated[
    Annotated[str, tag("string")] | Annotated[list[ContentPart], tag("array")],
    by_shape("a string or an array of content parts"),
]


class MessageItem(StrictModel):
    """A message; `type` may be left out (the Agents SDK does)."""

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: Content
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class FunctionCallItem(StrictModel):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None
    namespace: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class FunctionCallOutputItem(StrictModel):
    type: Literal["function_call_output"]
    call_id: str
    output: ToolOutput
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class SummaryText(StrictModel):
    type: Literal["summary_text"]
    text: str


class ReasoningItem(StrictModel):
    type: Literal["reasoning"]
    id: str | None = None
    summary: list[SummaryText] = Field(default_factory=list)
    encrypted_content: str | None = None
    content: list[dict[str, Any]] | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class CustomToolCallItem(StrictModel):
    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str
    id: str | None = None
    namespace: str | None = None


class CustomToolCallOutputItem(StrictModel):
    type: Literal["custom_tool_call_output"]
    call_id: str
    output: ToolOutput
    id: str | None = None


class OtherItem(StrictModel):
    """Items the emulator keeps in the conversation but does not read: item references, web search
    calls, and any item type it does not know (a newer SDK's), with a warning."""

    type: str
    id: str | None = None


InputItem = Annotated[
    Annotated[MessageItem, tag("message")]
    | Annotated[FunctionCallItem, tag("function_call")]
    | Annotated[FunctionCallOutputItem, tag("function_call_output")]
    | Annotated[ReasoningItem, tag("reasoning")]
    | Annotated[CustomToolCallItem, tag("custom_tool_call")]
    | Annotated[CustomToolCallOutputItem, tag("custom_tool_call_output")]
    | Annotated[OtherItem, tag("other")],
    by_key("type", default="message", known=KNOWN_ITEMS),
]
Input = Annotated[
    Annotated[str, tag("string")] | Annotated[list[InputItem], tag("array")],
    by_shape("a string or an array of input items"),
]

# --- tools ------------------------------------------------------------------------------------------

Name = Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]{1,128}$")]


class FunctionTool(StrictModel):
    type: Literal["function"]
    name: Name
    description: str | None = None
    parameters: JsonSchema | None = None
    strict: bool | None = None


class CustomTool(StrictModel):
    type: Literal["custom"]
    name: Name
    description: str | None = None
    format: dict[str, Any] | None = None


class NamespaceTool(StrictModel):
    """Codex's `{"type": "namespace", "name", "tools": [...]}`: a group of function and custom tools."""

    type: Literal["namespace"]
    name: str
    description: str | None = None
    tools: list[
        Annotated[
            Annotated[FunctionTool, tag("function")] | Annotated[CustomTool, tag("custom")], by_key("type", default="")
        ]
    ]


class HostedTool(StrictModel):
    """Web search and the other hosted tools: accepted, their options not read."""

    type: str


def _tool_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return None
    return kind if kind in ACTED_ON_TOOLS else "hosted"


Tool = Annotated[
    Annotated[FunctionTool, Tag("function")]
    | Annotated[CustomTool, Tag("custom")]
    | Annotated[NamespaceTool, Tag("namespace")]
    | Annotated[HostedTool, Tag("hosted")],
    Discriminator(_tool_tag),
]


class NamedChoice(StrictModel):
    type: Literal["function", "custom"]
    name: str


class AllowedToolsChoice(StrictModel):
    type: Literal["allowed_tools"]
    mode: Literal["auto", "required"]
    tools: list[dict[str, Any]]


class HostedChoice(StrictModel):
    type: str


def _choice_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else None
    if not isinstance(kind, str):
        return None
    return kind if kind in ("function", "custom", "allowed_tools") else "hosted"


ToolChoiceObject = Annotated[
    Annotated[NamedChoice, Tag("function")]
    | Annotated[NamedChoice, Tag("custom")]
    | Annotated[AllowedToolsChoice, Tag("allowed_tools")]
    | Annotated[HostedChoice, Tag("hosted")],
    Discriminator(_choice_tag),
]
ToolChoice = Annotated[
    Annotated[Literal["none", "auto", "required"], tag("string")] | Annotated[ToolChoiceObject, tag("object")],
    by_shape("'none', 'auto', 'required' or an object"),
]

# --- options ----------------------------------------------------------------------------------------


class ReasoningParam(StrictModel):
    effort: Effort | None = None
    summary: Literal["auto", "concise", "detailed"] | None = None
    generate_summary: Literal["auto", "concise", "detailed"] | None = None


class FormatText(StrictModel):
    type: Literal["text"]


class FormatJsonObject(StrictModel):
    type: Literal["json_object"]


class FormatJsonSchema(StrictModel):
    type: Literal["json_schema"]
    name: Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")]
    schema_: JsonSchema = Field(alias="schema")
    description: str | None = None
    strict: bool | None = None


Format = Annotated[FormatText | FormatJsonObject | FormatJsonSchema, Field(discriminator="type")]


class TextParam(StrictModel):
    format: Format | None = None
    verbosity: Literal["low", "medium", "high"] | None = None


class StreamOptions(StrictModel):
    include_usage: bool | None = None
    include_obfuscation: bool | None = None


INCLUDE = frozenset(
    {
        "file_search_call.results",
        "web_search_call.results",
        "web_search_call.action.sources",
        "message.input_image.image_url",
        "computer_call_output.output.image_url",
        "code_interpreter_call.outputs",
        "reasoning.encrypted_content",
        "message.output_text.logprobs",
    }
)
"""The `include` values the emulator knows; a newer one is accepted and ignored, with a warning."""


class ResponsesBody(StrictModel):
    """The fields of `POST /api/v1/responses` the emulator reads."""

    model: str
    input: Input | None = None
    instructions: str | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    reasoning: ReasoningParam | None = None
    text: TextParam | None = None
    max_output_tokens: Annotated[int, Field(ge=MIN_OUTPUT_TOKENS)] | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    store: bool | None = None
    previous_response_id: str | None = None
    include: list[str] | None = None
    truncation: Literal["auto", "disabled"] | None = None
    provider: ProviderOptions | None = None
    model_routing_config: ModelRoutingConfig | None = None


KNOWN = frozenset(ResponsesBody.model_fields)

# --- OpenAI's wording ---------------------------------------------------------------------------------

_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _path(loc: tuple[str | int, ...], body: Any, missing: bool) -> tuple[str, Any]:
    """The JSON path `loc` points at in `body` (pydantic's union and tag segments dropped), and the
    value there."""
    located = locate_error(loc, body, missing)
    return located.dotted(), located.node


def _supported(values: Any) -> str:
    listed = [f"'{v}'" for v in (values if isinstance(values, list) else [values])]
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + f", and {listed[-1]}"


def _message(error: ErrorDetails, body: Any) -> str:
    kind, ctx, value = error["type"], error.get("ctx", {}), error.get("input")
    path, node = _path(error["loc"], body, kind == "missing")
    if kind == "missing":
        return f"Missing required parameter: '{path}'."
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag = node.get("type") if isinstance(node, dict) else None
        if kind == "union_tag_not_found" or tag is None:
            return f"Missing required parameter: '{path}.type'."
        expected = tag_names(ctx.get("expected_tags", ""))
        return f"Invalid value: '{tag}'. Supported values are: {_supported(expected)}."
    if kind in _TYPE_NAMES:
        return f"Invalid type for '{path}': expected {_TYPE_NAMES[kind]}, but got {_json_type(value)} instead."
    if kind == WRONG_SHAPE:
        return f"Invalid type for '{path}': expected {error['msg']}, but got {_json_type(value)} instead."
    if kind == "literal_error":
        expected = [t.strip(" '") for t in str(ctx.get("expected", "")).replace(" or ", ", ").split(",")]
        return f"Invalid value: '{value}'. Supported values are: {_supported(expected)}."
    if kind in ("greater_than_equal", "less_than_equal"):
        number = "integer" if isinstance(value, int) else "decimal"
        below = kind == "greater_than_equal"
        bound = ctx.get("ge" if below else "le")
        bound = int(bound) if isinstance(bound, float) and bound.is_integer() else bound
        return (
            f"Invalid '{path}': {number} {'below minimum' if below else 'above maximum'} value. "
            f"Expected a value {'>=' if below else '<='} {bound}, but got {value} instead."
        )
    if kind == "string_pattern_mismatch":
        return (
            f"Invalid '{path}': string does not match pattern. Expected a string that matches the "
            f"pattern '{ctx.get('pattern')}'."
        )
    return f"Invalid '{path}': {error['msg'][:1].lower()}{error['msg'][1:]}."


def explain(error: ValidationError, body: Any) -> str:
    """OpenAI's message for the first problem in the body."""
    return _message(error.errors(include_url=False)[0], body)


# --- the request --------------------------------------------------------------------------------------


@dataclass(slots=True)
class Validated:
    """A body that passed, and what in it was ignored."""

    body: ResponsesBody
    warnings: tuple[str, ...]


def _warnings(body: dict[str, Any], parsed: ResponsesBody) -> tuple[str, ...]:
    warnings = []
    for key, value in body.items():
        if key in UNSUPPORTED:
            if value is not None:
                warnings.append(f"{key} is not supported by ZenMux's Responses API and was ignored")
        elif key not in KNOWN:
            shown = key if key.isascii() and key.isprintable() else key.encode("unicode_escape").decode()
            warnings.append(f"unknown parameter '{shown[:64]}' was ignored")
    for i, tool in enumerate(parsed.tools or ()):
        if isinstance(tool, HostedTool):
            if tool.type in UNSUPPORTED_TOOLS:
                warnings.append(f"tools[{i}]: the {tool.type} tool is not supported by ZenMux and was ignored")
            elif not tool.type.startswith("web_search"):
                warnings.append(f"tools[{i}]: the {tool.type} tool is not emulated and was ignored")
    for i, item in enumerate(parsed.input if isinstance(parsed.input, list) else ()):
        if isinstance(item, OtherItem):
            warnings.append(f"input[{i}]: {item.type} items are kept but not read")
    warnings += [
        f"include {value!r}: not a value the emulator knows; ignored"
        for value in parsed.include or ()
        if value not in INCLUDE
    ]
    warnings += effort_warnings(EFFORTS, reasoning__effort=parsed.reasoning.effort if parsed.reasoning else None)
    return tuple(warnings)


def _check_tool_choice(parsed: ResponsesBody) -> None:
    """`required` or a named tool needs tools, and a named tool must be one of them (OpenAI's 400s)."""
    choice = parsed.tool_choice
    if choice != "required" and not isinstance(choice, NamedChoice):
        return
    if not parsed.tools:
        raise invalid_params(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
        )
    if isinstance(choice, NamedChoice):
        names = set()
        for tool in parsed.tools:
            if isinstance(tool, FunctionTool | CustomTool):
                names.add(tool.name)
            elif isinstance(tool, NamespaceTool):
                names.update(inner.name for inner in tool.tools)
        if choice.name not in names:
            raise invalid_params(
                f"Tool choice '{choice.type}' with name '{choice.name}' not found in 'tools' parameter."
            )


CAPS = ConversationCaps("input", ("content", "output", "summary"))
"""The input items a request may hold, and their content parts in all (see `counts`)."""


def _overlong(overlong: Overlong) -> str:
    """OpenAI's wording for an array too long; the emulator's own for the parts of all items."""
    if not overlong.parts:
        return (
            f"Invalid 'input': array too long. Expected an array with maximum length {overlong.limit}, "
            f"but got an array with length {overlong.count} instead."
        )
    _, index, key = overlong.path
    return (
        f"Invalid 'input[{index}].{key}': too many content parts. Expected at most {overlong.limit} in all "
        f"input items together (the emulator's limit), but this one brings them to {overlong.count}."
    )


def validate(body: object, body_bytes: int | None = None) -> Validated:
    """Check the body (of `body_bytes` bytes, when known); raise 400 `invalid_params` with
    OpenAI's wording when it is not a valid request."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    model = body.get("model")
    if model is None or model == "":
        raise invalid_params("Missing required parameter: 'model'.")
    check_provider_routing(body)
    CAPS.refuse_overlong(body, _overlong, body_bytes)
    try:
        parsed = ResponsesBody.model_validate(body)
    except ValidationError as error:
        raise invalid_params(explain(error, body)) from None
    if body.get("stream_options") is not None and parsed.stream is not True:
        raise invalid_params("Invalid 'stream_options': stream_options is only allowed when stream is true.")
    if parsed.input is None and parsed.previous_response_id is None:
        raise invalid_params("Missing required parameter: 'input'.")
    if parsed.tool_choice is not None:
        _check_tool_choice(parsed)
    return Validated(parsed, _warnings(body, parsed))
