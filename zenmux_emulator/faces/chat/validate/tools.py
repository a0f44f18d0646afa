"""Tool definitions, `tool_choice` and `response_format`."""

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from zenmux_emulator.faces.common.json_schema import JsonSchema
from zenmux_emulator.faces.common.validation import StrictModel, by_shape, tag

NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]

# --- tools -----------------------------------------------------------------------------------


class FunctionDefinition(StrictModel):
    """`tools[].function`: a function described by a JSON Schema."""

    name: Name
    description: str | None = None
    parameters: JsonSchema | None = None
    strict: bool | None = None


class FunctionTool(StrictModel):
    """`{"type": "function", "function": {...}}`."""

    type: Literal["function"]
    function: FunctionDefinition


class TextFormat(StrictModel):
    """Custom tool input format: free text."""

    type: Literal["text"]


class Grammar(StrictModel):
    """A grammar constraining custom tool input."""

    definition: str
    syntax: Literal["lark", "regex"]


class GrammarFormat(StrictModel):
    """Custom tool input format: a grammar."""

    type: Literal["grammar"]
    grammar: Grammar


CustomFormat = Annotated[TextFormat | GrammarFormat, Field(discriminator="type")]


class CustomDefinition(StrictModel):
    """`tools[].custom`: a tool taking free-form (or grammar-constrained) input."""

    name: str
    description: str | None = None
    format: CustomFormat | None = None


class CustomTool(StrictModel):
    """`{"type": "custom", "custom": {...}}`."""

    type: Literal["custom"]
    custom: CustomDefinition


Tool = Annotated[FunctionTool | CustomTool, Field(discriminator="type")]

# --- tool_choice -----------------------------------------------------------------------------


class NamedTool(StrictModel):
    """`{"name": ...}` inside a named tool choice."""

    name: str


class FunctionChoice(StrictModel):
    """`{"type": "function", "function": {"name"}}`."""

    type: Literal["function"]
    function: NamedTool


class CustomChoice(StrictModel):
    """`{"type": "custom", "custom": {"name"}}`."""

    type: Literal["custom"]
    custom: NamedTool


class AllowedTools(StrictModel):
    """The set of tools the model may pick from, and whether it must call one."""

    mode: Literal["auto", "required"]
    tools: list[dict[str, Any]]


class AllowedToolsChoice(StrictModel):
    """`{"type": "allowed_tools", "allowed_tools": {mode, tools}}`; the flat `{type, mode, tools}` form is nested."""

    type: Literal["allowed_tools"]
    allowed_tools: AllowedTools

    @model_validator(mode="before")
    @classmethod
    def _nest_flat_form(cls, data: Any) -> Any:
        if isinstance(data, dict) and "allowed_tools" not in data and ("mode" in data or "tools" in data):
            nested = {key: data[key] for key in ("mode", "tools") if key in data}
            return {"type": data.get("type"), "allowed_tools": nested}
        return data


ToolChoiceMode = Literal["none", "auto", "required"]
ToolChoiceObject = Annotated[FunctionChoice | CustomChoice | AllowedToolsChoice, Field(discriminator="type")]
ToolChoice = Annotated[
    Annotated[ToolChoiceMode, tag("string")] | Annotated[ToolChoiceObject, tag("object")],
    by_shape("expected 'none', 'auto', 'required' or an object"),
]

# --- response_format -------------------------------------------------------------------------


class TextResponseFormat(StrictModel):
    """`{"type": "text"}`."""

    type: Literal["text"]


class JsonObjectResponseFormat(StrictModel):
    """`{"type": "json_object"}`: any valid JSON."""

    type: Literal["json_object"]


class JsonSchemaSpec(StrictModel):
    """`response_format.json_schema`; the schema itself is `schema_` (JSON key `schema`)."""

    name: Name
    description: str | None = None
    schema_: JsonSchema | None = Field(default=None, alias="schema")
    strict: bool | None = None


class JsonSchemaResponseFormat(StrictModel):
    """`{"type": "json_schema", "json_schema": {...}}`: JSON matching a schema."""

    type: Literal["json_schema"]
    json_schema: JsonSchemaSpec


ResponseFormat = Annotated[
    TextResponseFormat | JsonObjectResponseFormat | JsonSchemaResponseFormat,
    Field(discriminator="type"),
]
