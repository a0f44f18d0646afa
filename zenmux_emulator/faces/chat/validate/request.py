"""The top-level `ChatCompletionRequest` and `validate_request`, step 2 of the request flow."""

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, ValidationError

from zenmux_emulator.faces.common.validation import StrictModel, at_least, between, by_shape, not_valid, tag
from zenmux_emulator.faces.common.zenmux import (
    EFFORTS,
    Effort,
    ModelRoutingConfig,
    ProviderOptions,
    ReasoningOptions,
    UsageOptions,
    WebSearchOptions,
    effort_warnings,
)
from zenmux_emulator.foundation.errors import invalid_params

from .conversation import check_tool_flow
from .explain import explain
from .messages import Message
from .options import check_options
from .precheck import ignored_field_warnings, precheck
from .tools import ResponseFormat, Tool, ToolChoice

MAX_STOP_SEQUENCES = 4
MAX_METADATA_PAIRS = 16
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 512


def _check_stop_list(stops: list[str]) -> list[str]:
    if len(stops) > MAX_STOP_SEQUENCES:
        raise not_valid(f"at most {MAX_STOP_SEQUENCES} stop sequences are allowed")
    return stops


def _check_metadata(metadata: dict[str, str]) -> dict[str, str]:
    if len(metadata) > MAX_METADATA_PAIRS:
        raise not_valid(f"at most {MAX_METADATA_PAIRS} key-value pairs are allowed, got {len(metadata)}")
    if any(len(key) > MAX_METADATA_KEY for key in metadata):
        raise not_valid(f"keys must be at most {MAX_METADATA_KEY} characters")
    if any(len(value) > MAX_METADATA_VALUE for value in metadata.values()):
        raise not_valid(f"values must be at most {MAX_METADATA_VALUE} characters")
    return metadata


Stop = Annotated[
    Annotated[str, tag("string")] | Annotated[list[str], AfterValidator(_check_stop_list), tag("array")],
    by_shape("expected a string or an array of strings"),
]
Penalty = Annotated[float, between(-2, 2)]


class StreamOptions(StrictModel):
    """`stream_options` (only allowed with `stream: true`)."""

    include_usage: bool | None = None
    include_obfuscation: bool | None = None


class ChatCompletionRequest(StrictModel):
    """A validated `POST /api/v1/chat/completions` body; fields ZenMux ignores are not kept."""

    model: str
    messages: list[Message]
    max_completion_tokens: Annotated[int, at_least(1, "an integer")] | None = None
    temperature: Annotated[float, at_least(0)] | None = None
    top_p: Annotated[float, between(0, 1)] | None = None
    n: Annotated[int, at_least(1, "an integer")] | None = None
    frequency_penalty: Penalty | None = None
    presence_penalty: Penalty | None = None
    stop: Stop | None = None
    logit_bias: dict[str, Annotated[float, between(-100, 100)]] | None = None
    logprobs: bool | None = None
    top_logprobs: Annotated[int, between(0, 20, "an integer")] | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    reasoning_effort: Effort | None = None
    verbosity: Literal["low", "medium", "high"] | None = None
    web_search_options: WebSearchOptions | None = None
    metadata: Annotated[dict[str, str], AfterValidator(_check_metadata)] | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    usage: UsageOptions | None = None
    include_reasoning: bool | None = None
    reasoning: ReasoningOptions | None = None
    response_format: ResponseFormat | None = None
    provider: ProviderOptions | None = None
    model_routing_config: ModelRoutingConfig | None = None

    @property
    def wants_usage_in_stream(self) -> bool:
        """Whether a stream should end with a usage chunk (`stream_options.include_usage` or `usage.include`)."""
        if self.stream_options is not None and self.stream_options.include_usage:
            return True
        return self.usage is not None and self.usage.include

    @property
    def stop_sequences(self) -> tuple[str, ...]:
        """`stop` as a tuple (empty when absent)."""
        if self.stop is None:
            return ()
        return (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)


KNOWN_FIELDS = frozenset(ChatCompletionRequest.model_fields)
CROSS_CHECKED = frozenset({"tool_choice", "top_logprobs", "logit_bias"})
"""The fields `check_options` reads: a body with none of them (most) skips it."""


@dataclass(slots=True)
class ValidatedRequest:
    """A request that passed validation, with warnings about the fields that were ignored. Made on
    every chat request and never changed: slotted and not frozen, as the endpoint's step values are."""

    request: ChatCompletionRequest
    warnings: tuple[str, ...]


def validate_request(body: object, body_bytes: int | None = None) -> ValidatedRequest:
    """Check a parsed JSON body (of `body_bytes` bytes, when known) against ZenMux's contract;
    raise the 400 `invalid_params` rejection if it fails."""
    checked, tooled = precheck(body, body_bytes)
    try:  # the model's validator, without `model_validate`'s wrapper and its keyword arguments
        request: ChatCompletionRequest = ChatCompletionRequest.__pydantic_validator__.validate_python(checked)
    except ValidationError as error:
        raise invalid_params(explain(error, checked)) from None
    if tooled:
        check_tool_flow(checked["messages"])
    if not CROSS_CHECKED.isdisjoint(checked):
        check_options(request)
    nested_effort = request.reasoning.effort if request.reasoning is not None else None
    efforts = (
        effort_warnings(EFFORTS, reasoning_effort=request.reasoning_effort, reasoning__effort=nested_effort)
        if request.reasoning_effort is not None or nested_effort is not None  # most requests name no effort
        else ()
    )
    return ValidatedRequest(request=request, warnings=ignored_field_warnings(checked, KNOWN_FIELDS) + efforts)
