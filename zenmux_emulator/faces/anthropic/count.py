"""`POST /api/anthropic/v1/messages/count_tokens`: the prompt's size as the face counts it for usage."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.faces.anthropic.headers import betas, check_version
from zenmux_emulator.faces.anthropic.request import AnthropicRequest
from zenmux_emulator.faces.anthropic.validate import CountTokensRequest, validate
from zenmux_emulator.gateway.auth import authenticate
from zenmux_emulator.pipeline.body import read_json
from zenmux_emulator.pipeline.endpoint import Core
from zenmux_emulator.pipeline.headers import WARNINGS_HEADER, list_header
from zenmux_emulator.pipeline.keys import ENTRY


class CountTokens:
    """The handler: authenticated and validated as a message would be, answered with
    `{"input_tokens": N}`, the `input_tokens` the same request would be billed."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def handle(self, request: web.Request) -> web.Response:
        entry = request[ENTRY]
        entry.api = "anthropic"
        authenticate(request.headers, self.core.accepted_keys())
        body = await read_json(request, self.core.settings.max_body_bytes)
        entry.body = body
        version_warnings = check_version(request.headers)
        asked, beta_warnings = betas(request.headers)
        validated, warnings = validate(body, CountTokensRequest)
        checked: dict[str, Any] = body  # type: ignore[assignment]  # validate proved it a mapping
        ask = AnthropicRequest(checked, request.headers, validated, version_warnings + beta_warnings + warnings, asked)
        entry.warn(ask.warnings)
        answer = orjson.dumps({"input_tokens": ask.prompt_tokens})
        entry.response = answer
        headers = {WARNINGS_HEADER: list_header(ask.warnings)} if ask.warnings else {}
        return web.Response(body=answer, content_type="application/json", headers=headers)
