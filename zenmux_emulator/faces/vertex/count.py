"""`…:countTokens`: the prompt's size as the face counts it for `usageMetadata.promptTokenCount`."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.faces.vertex.face import NAME
from zenmux_emulator.faces.vertex.request import prompt_tokens
from zenmux_emulator.faces.vertex.validate import CountTokensRequest, validate
from zenmux_emulator.gateway.auth import authenticate
from zenmux_emulator.pipeline.body import read_json
from zenmux_emulator.pipeline.endpoint import Core
from zenmux_emulator.pipeline.keys import ENTRY


class CountTokens:
    """The handler: authenticated and validated as a generation would be, answered with
    `{"totalTokens": N}`, the `promptTokenCount` the same request would report."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def handle(self, request: web.Request) -> web.Response:
        entry = request[ENTRY]
        entry.api = NAME
        authenticate(request.headers, self.core.accepted_keys())
        body = await read_json(request, self.core.settings.max_body_bytes)
        entry.body = body
        counted: CountTokensRequest = validate(body, CountTokensRequest)
        inner = counted.generate_content_request
        normal: dict[str, Any] = (inner if inner is not None else counted).model_dump(by_alias=True, exclude_none=True)
        total = prompt_tokens(normal.get("systemInstruction"), normal.get("contents") or [], normal.get("tools"))
        answer = orjson.dumps(
            {"totalTokens": total, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": total}]}
        )
        entry.response = answer
        return web.Response(body=answer, content_type="application/json")
