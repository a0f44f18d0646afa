"""A non-streamed `chat.completion` body."""

from __future__ import annotations

from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.chat.logprobs import token_logprobs
from zenmux_emulator.foundation import tokens


def function_call(draft: Draft) -> dict[str, str] | None:
    """The legacy `function_call` a `function_call` finish comes with: the first function call,
    sent instead of `tool_calls`."""
    if draft.finish_reason != "function_call":
        return None
    call = next((c for c in draft.tool_calls if c["type"] == "function"), None)
    return None if call is None else {"name": call["function"]["name"], "arguments": call["function"]["arguments"]}


def completion_body(draft: Draft, completion_id: str, created: int, top_logprobs: int | None) -> bytes:
    """The whole response body; `top_logprobs` None means logprobs were not asked for."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": draft.content,
        "refusal": draft.refusal,
        "annotations": draft.annotations,
    }
    if draft.reasoning is not None:
        message["reasoning"] = draft.reasoning
        message["reasoning_details"] = draft.reasoning_details
    legacy = function_call(draft) if draft.finish_reason == "function_call" else None  # rare: no call
    if legacy is not None:
        message["function_call"] = legacy
    elif draft.tool_calls:
        message["tool_calls"] = draft.tool_calls
    logprobs = None
    if top_logprobs is not None:
        logprobs = {
            "content": token_logprobs(tokens.pieces(draft.content or ""), top_logprobs),
            "refusal": token_logprobs(tokens.pieces(draft.refusal), top_logprobs) if draft.refusal else None,
        }
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": draft.model,
        "choices": [{"index": 0, "message": message, "logprobs": logprobs, "finish_reason": draft.finish_reason}],
        "usage": draft.usage,
    }
    if draft.service_tier is not None:
        body["service_tier"] = draft.service_tier
    if draft.system_fingerprint is not None:
        body["system_fingerprint"] = draft.system_fingerprint
    return orjson.dumps(body)
