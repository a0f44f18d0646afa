"""`POST /api/anthropic/v1/messages/count_tokens`: the prompt's size as the face counts it for usage
(the route is the core's `SideRoute`: this is the face's answer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.side import SideAnswer
from zenmux_emulator.faces.anthropic.headers import betas, check_version
from zenmux_emulator.faces.anthropic.request import AnthropicRequest
from zenmux_emulator.faces.anthropic.validate import CountTokensRequest, validate


def count_tokens(body: object, headers: Mapping[str, str]) -> SideAnswer:
    """Validated as a message would be, answered with `{"input_tokens": N}`, the `input_tokens`
    the same request would be billed."""
    version_warnings = check_version(headers)
    asked, beta_warnings = betas(headers)
    validated, warnings = validate(body, CountTokensRequest)
    checked: dict[str, Any] = body  # type: ignore[assignment]  # validate proved it a mapping
    ask = AnthropicRequest(checked, headers, validated, version_warnings + beta_warnings + warnings, asked)
    return SideAnswer({"input_tokens": ask.prompt_tokens}, ask.warnings)
