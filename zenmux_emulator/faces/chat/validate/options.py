"""Checks between fields of a valid `ChatCompletionRequest`, answered with 400 as OpenAI answers
them: a `tool_choice` that no offered tool can satisfy, `top_logprobs` without `logprobs`, and
`logit_bias` keys that are not token ids."""

from __future__ import annotations

from typing import Protocol

from zenmux_emulator.foundation.errors import invalid_params

from .tools import CustomChoice, CustomTool, FunctionChoice, FunctionTool, Tool, ToolChoice


class ChatCompletionRequest(Protocol):
    """The fields of the validated request these checks read."""

    @property
    def tools(self) -> list[Tool] | None: ...
    @property
    def tool_choice(self) -> ToolChoice | None: ...
    @property
    def logprobs(self) -> bool | None: ...
    @property
    def top_logprobs(self) -> int | None: ...
    @property
    def logit_bias(self) -> dict[str, float] | None: ...


MAX_TOKEN_ID = 2**31 - 1
"""Token ids are non-negative integers; the emulator has no vocabulary, so any up to this is accepted."""


def _offered(request: ChatCompletionRequest) -> set[tuple[str, str]]:
    offered: set[tuple[str, str]] = set()
    for tool in request.tools or ():
        if isinstance(tool, FunctionTool):
            offered.add(("function", tool.function.name))
        elif isinstance(tool, CustomTool):
            offered.add(("custom", tool.custom.name))
    return offered


def check_tool_choice(request: ChatCompletionRequest) -> None:
    """`required` or a named tool needs tools, and a named tool must be one of them."""
    choice = request.tool_choice
    if choice != "required" and not isinstance(choice, FunctionChoice | CustomChoice):
        return
    if not request.tools:
        raise invalid_params(
            "Parameter tool_choice is not valid: 'tool_choice' is only allowed when 'tools' are specified"
        )
    if isinstance(choice, FunctionChoice | CustomChoice):
        name = choice.function.name if isinstance(choice, FunctionChoice) else choice.custom.name
        if (choice.type, name) not in _offered(request):
            raise invalid_params(
                f"Parameter tool_choice is not valid: {choice.type} {name!r} is not one of the tools in 'tools'"
            )


def check_logprobs(request: ChatCompletionRequest) -> None:
    if request.top_logprobs is not None and request.logprobs is not True:
        raise invalid_params("Parameter top_logprobs is not valid: 'logprobs' must be true when 'top_logprobs' is set")


def check_logit_bias(request: ChatCompletionRequest) -> None:
    for key in request.logit_bias or ():
        if not (key.isascii() and key.isdigit() and int(key) <= MAX_TOKEN_ID):
            shown = key[:32].encode("ascii", "backslashreplace").decode()
            raise invalid_params(
                f"Parameter logit_bias is not valid: key '{shown}' is not a token id (a non-negative integer)"
            )


def check_options(request: ChatCompletionRequest) -> None:
    """Every cross-field check, in the order the fields are documented."""
    if request.logit_bias:
        check_logit_bias(request)
    if request.top_logprobs is not None:
        check_logprobs(request)
    if request.tool_choice is not None:
        check_tool_choice(request)
