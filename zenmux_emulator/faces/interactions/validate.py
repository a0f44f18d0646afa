"""A `POST /api/v1/interactions` body as Google's Interactions API v1 takes it (snake_case keys).
ZenMux passes the body through to the provider: fields not read here are accepted and kept in the
journal, not refused. A failure is ZenMux's 400 `invalid_params` naming the field by its path, as
`generation_config.max_output_tokens` or `input[1].text`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, ValidationError

from zenmux_emulator.faces.common.validation import StrictModel, at_least, between, locate_error
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


def _path(path: list[str | int]) -> str:
    text = ""
    for segment in path:
        text += f"[{segment}]" if isinstance(segment, int) else ("." if text else "") + segment
    return text


def problem(exc: ValidationError, body: object) -> str:
    """The first error as `path: message`."""
    first = exc.errors(include_url=False)[0]
    located = locate_error(first["loc"], body, missing=first["type"] == "missing")
    path = _path(located.path)
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{path}: {message}" if path else message


def validate(body: object) -> InteractionsBody:
    """The validated body; ZenMux's 400 naming the field otherwise."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    try:
        return InteractionsBody.model_validate(body)
    except ValidationError as exc:
        raise invalid_params(problem(exc, body)) from None
