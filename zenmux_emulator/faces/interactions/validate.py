"""A `POST /api/v1/interactions` body as Google's Interactions API v1 takes it (snake_case keys).
ZenMux passes the body through to the provider: fields not read here are accepted and kept in the
journal, not refused. A failure is ZenMux's 400 `invalid_params` naming the field by its path, as
`generation_config.max_output_tokens` or `input[1].text`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, ValidationError

from zenmux_emulator.faces.common.counts import ConversationCaps, Overlong
from zenmux_emulator.faces.common.json_schema import JsonSchema, schema_problem
from zenmux_emulator.faces.common.validation import StrictModel, at_least, between, locate_error
from zenmux_emulator.faces.common.zenmux import check_provider_routing
from zenmux_emulator.foundation.errors import invalid_params

MAX_STOP_SEQUENCES = 5

ThinkingLevel = Literal["minimal", "low", "medium", "high"]
ToolChoiceType = Literal["auto", "any", "none", "validated"]


class GenerationConfig(StrictModel):
    """The generation parameters the emulator reads; any other is passed through."""

    temperature: Annotated[float, between(0, 2)] | None = None
    top_p: Annotated[float, between(0, 1)] | None = None
    seed: int | None = None
    max_output_tokens: Annotated[int, at_least(1, "an integer")] | None = None
    stop_sequences: Annotated[list[str], Field(max_length=MAX_STOP_SEQUENCES)] | None = None
    thinking_level: ThinkingLevel | None = None
    thinking_summaries: Literal["auto", "none"] | None = None
    tool_choice: ToolChoiceType | dict[str, JsonValue] | None = None


class FunctionTool(StrictModel):
    """A `function` tool: its `parameters` must be a JSON Schema (the draft makes calls from it)."""

    type: Literal["function"]
    name: str
    description: str | None = None
    parameters: JsonSchema | None = None


class InteractionsBody(StrictModel):
    """The fields the emulator reads; `input` is read by `conversation.py`, which names its own paths."""

    model: str
    input: str | dict[str, JsonValue] | list[dict[str, JsonValue]]
    system_instruction: str | None = None
    tools: list[dict[str, JsonValue]] | None = None
    generation_config: GenerationConfig | None = None
    response_format: dict[str, JsonValue] | list[dict[str, JsonValue]] | None = None
    response_mime_type: str | None = None
    stream: bool | None = None
    store: bool | None = None
    previous_interaction_id: str | None = None


def problem(exc: ValidationError, body: object) -> str:
    """The first error as `path: message`."""
    first = exc.errors(include_url=False)[0]
    path = locate_error(first["loc"], body, missing=first["type"] == "missing").dotted()
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{path}: {message}" if path else message


def _check_tools(tools: list[dict[str, JsonValue]]) -> None:
    """Each `function` tool whole, its `parameters` a JSON Schema; other tools pass through."""
    for n, tool in enumerate(tools):
        if tool.get("type") != "function":
            continue
        try:
            FunctionTool.model_validate(tool)
        except ValidationError as exc:
            raise invalid_params(f"tools[{n}].{problem(exc, tool)}") from None


def _check_format(form: object, where: str) -> None:
    """A response format's JSON Schema (its `schema`, or the format itself as a bare schema)."""
    if not isinstance(form, dict):
        return
    schema = form.get("schema")
    if isinstance(schema, dict):
        where, form = f"{where}.schema", schema
    elif not ("properties" in form or form.get("type") in ("object", "array")):
        return
    found = schema_problem(form)
    if found is not None:
        raise invalid_params(f"{where}: {found}")


CAPS = ConversationCaps("input", ("content",))
"""The steps (or parts) `input` may hold, and their content parts in all (see `counts`)."""


def _overlong(overlong: Overlong) -> str:
    if not overlong.parts:
        return f"input: at most {overlong.limit} items are allowed (the emulator's limit), got {overlong.count}"
    _, index, key = overlong.path
    return (
        f"input[{index}].{key}: at most {overlong.limit} content parts are allowed in all steps together "
        f"(the emulator's limit), and this one brings them to {overlong.count}"
    )


def validate(body: object, body_bytes: int | None = None) -> InteractionsBody:
    """The validated body (of `body_bytes` bytes of JSON, when known); ZenMux's 400 naming the
    field otherwise."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    check_provider_routing(body)
    CAPS.refuse_overlong(body, _overlong, body_bytes)
    try:
        parsed = InteractionsBody.model_validate(body)
    except ValidationError as exc:
        raise invalid_params(problem(exc, body)) from None
    _check_tools(parsed.tools or [])
    forms = parsed.response_format
    for n, form in enumerate(forms) if isinstance(forms, list) else ((None, forms),):
        _check_format(form, "response_format" if n is None else f"response_format[{n}]")
    return parsed
