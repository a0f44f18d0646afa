"""A draft as a Responses `response` object: its output items, status and usage.

Output order: the reasoning item, the message (its `output_text`, then its `refusal`), then one
item per tool call. Reasoning carries its summary when the request set `reasoning.summary`, and
`encrypted_content` (minted by the Signer for the item's `rs_` id) when `include` asks for it.
"""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.draft.reasoning import encrypted_id
from zenmux_emulator.faces.responses.request import ResponsesRequest
from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.foundation.signatures import Signer

ERROR_CODES = frozenset({"server_error", "rate_limit_exceeded", "invalid_prompt"})
"""`response.error.code` values a scripted stream error may name; any other becomes `server_error`."""


def item_id(prefix: str, response_id: str, *parts: object) -> str:
    return f"{prefix}_{digest(response_id, prefix, *parts, size=24)}"


def reasoning_item(draft: Draft, request: ResponsesRequest, signer: Signer, seed: int) -> dict[str, Any] | None:
    """The reasoning item, None when the draft has no reasoning; the summary and the encrypted
    content only as asked. The id and payload are the draft's own for OpenAI-family models."""
    if draft.reasoning is None:
        return None
    minted = next((d for d in draft.reasoning_details or () if d.get("type") == "reasoning.encrypted"), None)
    rs_id = str(minted["id"]) if minted else encrypted_id(seed, draft.reasoning)
    item: dict[str, Any] = {"id": rs_id, "type": "reasoning", "summary": []}
    if request.wants_summary:
        item["summary"] = [{"type": "summary_text", "text": draft.reasoning}]
    if request.include_encrypted:
        item["encrypted_content"] = str(minted["data"]) if minted else signer.encrypt(rs_id, draft.reasoning)
    return item


def citations_of(draft: Draft) -> list[dict[str, Any]]:
    """The draft's citations in the Responses shape: flat `url_citation` objects."""
    return [{"type": "url_citation", **note["url_citation"]} for note in draft.annotations]


def message_item(draft: Draft, response_id: str, status: str) -> dict[str, Any] | None:
    """The assistant message: `output_text` and/or `refusal`; None for a reply of tool calls only."""
    content: list[dict[str, Any]] = []
    if draft.content or (draft.content is not None and not draft.tool_calls and not draft.refusal):
        content.append(
            {"type": "output_text", "text": draft.content, "annotations": citations_of(draft), "logprobs": []}
        )
    if draft.refusal:
        content.append({"type": "refusal", "refusal": draft.refusal})
    if not content:
        return None
    return {
        "id": item_id("msg", response_id),
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content,
    }


def call_item(call: dict[str, Any], response_id: str, index: int, request: ResponsesRequest) -> dict[str, Any]:
    """A `function_call` or `custom_tool_call` item; a tool offered inside a namespace names it."""
    kind = call["type"]
    inner = call[kind]
    namespace = (request.tool_options.offered.get(inner["name"]) or {}).get("namespace")
    if kind == "custom":
        item = {
            "id": item_id("ctc", response_id, index),
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call["id"],
            "name": inner["name"],
            "input": inner["input"],
        }
    else:
        item = {
            "id": item_id("fc", response_id, index),
            "type": "function_call",
            "status": "completed",
            "call_id": call["id"],
            "name": inner["name"],
            "arguments": inner["arguments"],
        }
    if namespace:
        item["namespace"] = namespace
    return item


def status_of(draft: Draft) -> tuple[str, dict[str, str] | None]:
    """`completed`, or `incomplete` with its reason when the reply was cut by the token limit or filtered."""
    if draft.finish_reason == "length":
        return "incomplete", {"reason": "max_output_tokens"}
    if draft.finish_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def output_items(
    draft: Draft, request: ResponsesRequest, response_id: str, signer: Signer, seed: int
) -> list[dict[str, Any]]:
    status, _ = status_of(draft)
    items = [reasoning_item(draft, request, signer, seed), message_item(draft, response_id, status)]
    items += [call_item(call, response_id, i, request) for i, call in enumerate(draft.tool_calls)]
    made = [item for item in items if item is not None]
    if draft.cut_call and draft.tool_calls:  # its arguments stop mid-way (stop-length-mid-tool)
        made[-1] = {**made[-1], "status": "incomplete"}
    return made


def usage_of(draft: Draft) -> dict[str, Any]:
    """The chat-shaped usage of the draft in the Responses shape."""
    usage = draft.usage
    return {
        "input_tokens": usage["prompt_tokens"],
        "input_tokens_details": {
            "cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
            "cache_write_tokens": 0,
        },
        "output_tokens": usage["completion_tokens"],
        "output_tokens_details": {"reasoning_tokens": usage["completion_tokens_details"]["reasoning_tokens"]},
        "total_tokens": usage["total_tokens"],
    }


def response_object(
    request: ResponsesRequest,
    response_id: str,
    created: int,
    model: str,
    *,
    status: str,
    output: list[dict[str, Any]],
    usage: dict[str, Any] | None,
    incomplete: dict[str, str] | None = None,
    error: dict[str, str] | None = None,
    service_tier: str | None = None,
) -> dict[str, Any]:
    """The `response` object: the request's options echoed back, as OpenAI's does."""
    body, parsed = request.body, request.parsed
    reasoning = parsed.reasoning
    sent = body.get("text")
    text: dict[str, Any] = sent if isinstance(sent, dict) else {}
    answer = {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "completed_at": created if status == "completed" else None,
        "error": error,
        "incomplete_details": incomplete,
        "instructions": parsed.instructions,
        "max_output_tokens": parsed.max_output_tokens,
        "model": model,
        "output": output,
        "parallel_tool_calls": parsed.parallel_tool_calls is not False,
        "previous_response_id": parsed.previous_response_id,
        "reasoning": {
            "effort": reasoning.effort if reasoning else None,
            "summary": (reasoning.summary or reasoning.generate_summary) if reasoning else None,
        },
        "service_tier": service_tier or "default",
        "store": request.store,
        "temperature": parsed.temperature if parsed.temperature is not None else 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium", **text},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": echoed_tools(body.get("tools")),
        "top_p": parsed.top_p if parsed.top_p is not None else 1.0,
        "truncation": parsed.truncation or "disabled",
        "metadata": {},
    }
    if usage is not None:  # absent, not null, while the response is in progress or when it failed
        answer["usage"] = usage
    return answer


FUNCTION_DEFAULTS = {"description": None, "parameters": None, "strict": True}
"""What OpenAI's echo of a function tool fills in when the request leaves it out (its schema requires
`strict` and `parameters`; function tools are strict by default in the Responses API)."""


def echoed_tools(tools: object) -> list[Any]:
    """The request's tools as `response.tools` shows them: each function tool whole."""
    if not isinstance(tools, list):
        return []
    return [
        {**tool, **{key: tool.get(key, value) for key, value in FUNCTION_DEFAULTS.items()}}
        if isinstance(tool, dict) and tool.get("type") == "function"
        else tool
        for tool in tools
    ]


def failure(code: str, message: str) -> dict[str, str]:
    """`response.error` of a failed response."""
    return {"code": code if code in ERROR_CODES else "server_error", "message": message}
