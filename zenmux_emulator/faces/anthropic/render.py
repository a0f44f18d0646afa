"""A draft as Anthropic's Messages API sends it: one `message` JSON body, or named SSE events.

Blocks, in order: thinking (signed by the emulator's anthropic-family signer), text (the
content, then a refusal's text), one tool_use per tool call. The stream is
message_start, then per block content_block_start (a ping after the first), its deltas
(text_delta, thinking_delta then signature_delta, input_json_delta) and content_block_stop,
then message_delta (stop_reason, usage) and message_stop.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.anthropic.errors import ERROR_TYPES
from zenmux_emulator.faces.anthropic.request import FAMILY, AnthropicRequest
from zenmux_emulator.faces.common.call_arguments import call_arguments
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import digest, seed_int
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.scenario.schema import StreamFault, StreamTiming
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
MALFORMED_EVENT = (
    b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    b'"delta": {"type": "text_delta", "text": "unterminated\n\n'
)
PING = b'event: ping\ndata: {"type":"ping"}\n\n'


def message_id(generation: str) -> str:
    return "msg_01" + digest("message", generation, size=11)


def tool_use_id(call_id: str) -> str:
    """Chat-style `call_…` ids become `toolu_…`; scripted ids and `toolu_…` stay as they are."""
    return "toolu_" + call_id[5:] if call_id.startswith("call_") else call_id


def unparsed_arguments(draft: Draft) -> list[str | None]:
    """Per tool call, its argument text when a misbehaviour left it no JSON object (None otherwise):
    a stream sends it as it is in `input_json_delta`s; a message's `input` is that text as a string
    (not JSON) or, for arguments cut by the length stop, the empty object a partial parse gives."""
    if draft.misbehaved is None:
        return [None] * len(draft.tool_calls)
    texts: list[str | None] = []
    for call in draft.tool_calls:
        text = call["function"]["arguments"] if call["type"] == "function" else None
        try:
            parsed = orjson.loads(text) if text is not None else {}
        except orjson.JSONDecodeError:
            texts.append(text)
        else:
            texts.append(text if not isinstance(parsed, dict) else None)
    return texts


def content_blocks(draft: Draft, request: AnthropicRequest, signer: Signer) -> list[dict[str, Any]]:
    """The reply's blocks, complete."""
    blocks: list[dict[str, Any]] = []
    thinking = draft.reasoning
    if thinking is None and request.reasoning.exclude and draft.usage["completion_tokens_details"]["reasoning_tokens"]:
        thinking = ""  # display: omitted — the block is there, its text is not
    if thinking is not None:
        recorded = draft.spec.reasoning_signature if draft.spec is not None else None
        signature = recorded if recorded is not None else signer.sign(FAMILY, 0, thinking)
        blocks.append({"type": "thinking", "thinking": thinking, "signature": signature})
    for text in (draft.content, draft.refusal):
        if text:
            blocks.append({"type": "text", "text": text})
    unparsed = unparsed_arguments(draft)
    for call, raw in zip(draft.tool_calls, unparsed, strict=True):
        name = call[call["type"]]["name"]
        given: Any = (
            call_arguments(call) if raw is None else {} if draft.cut_call and call is draft.tool_calls[-1] else raw
        )
        blocks.append({"type": "tool_use", "id": tool_use_id(call["id"]), "name": name, "input": given})
    return blocks


def stop_reason(draft: Draft) -> str:
    if draft.refusal is not None and draft.finish_reason != "length":
        return "refusal"
    if draft.finish_reason == "stop" and draft.stop_sequence is not None:
        return "stop_sequence"
    return STOP_REASONS.get(draft.finish_reason, "end_turn")


def usage(draft: Draft) -> dict[str, Any]:
    """Anthropic's usage from the draft's: input_tokens leaves out what was read from the cache."""
    cached = int(draft.usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
    tier = draft.service_tier if draft.service_tier in ("priority", "batch") else "standard"
    return {
        "input_tokens": max(int(draft.usage["prompt_tokens"]) - cached, 0),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached,
        "output_tokens": int(draft.usage["completion_tokens"]),
        "service_tier": tier,
    }


def message_body(draft: Draft, request: AnthropicRequest, generation: str, signer: Signer) -> dict[str, Any]:
    reason = stop_reason(draft)
    return {
        "id": message_id(generation),
        "type": "message",
        "role": "assistant",
        "model": draft.model,
        "content": content_blocks(draft, request, signer),
        "stop_reason": reason,
        "stop_sequence": draft.stop_sequence if reason == "stop_sequence" else None,
        "usage": usage(draft),
    }


def _event(name: str, data: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def _pieces(text: str, size: int) -> Iterator[str]:
    return ("".join(group) for group in tokens.groups(text, size))


def _deltas(block: dict[str, Any], timing: StreamTiming | None, raw: str | None) -> Iterator[dict[str, Any]]:
    """The deltas of one block, made one by one."""
    chunk_tokens = timing.chunk_tokens if timing else 1
    kind = block["type"]
    if kind == "thinking":
        for p in _pieces(block["thinking"], chunk_tokens):
            yield {"type": "thinking_delta", "thinking": p}
        yield {"type": "signature_delta", "signature": block["signature"]}
    elif kind == "text":
        for p in _pieces(block["text"], chunk_tokens):
            yield {"type": "text_delta", "text": p}
    else:
        text = raw if raw is not None else orjson.dumps(block["input"]).decode()
        size = timing.argument_chars if timing else 16
        for i in range(0, len(text), size):
            yield {"type": "input_json_delta", "partial_json": text[i : i + size]}


def _opening(block: dict[str, Any]) -> dict[str, Any]:
    kind = block["type"]
    if kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    if kind == "text":
        return {"type": "text", "text": ""}
    return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}


def stream_events(
    message: dict[str, Any], timing: StreamTiming | None, unparsed: list[str | None] | None = None
) -> Iterator[bytes]:
    """Every event of the stream, in order, each made when it is asked for: per block
    content_block_start (a ping after the first), the deltas, content_block_stop; `unparsed`
    gives, per tool_use block, the argument text to send as it is (`unparsed_arguments`)."""
    raws = iter(unparsed or ())
    start_usage = {**message["usage"], "output_tokens": 1}
    head = {**message, "content": [], "stop_reason": None, "stop_sequence": None, "usage": start_usage}
    yield _event("message_start", {"type": "message_start", "message": head})
    for index, block in enumerate(message["content"]):
        yield _event(
            "content_block_start", {"type": "content_block_start", "index": index, "content_block": _opening(block)}
        )
        if index == 0:
            yield PING
        raw = next(raws, None) if block["type"] == "tool_use" else None
        for delta in _deltas(block, timing, raw):
            yield _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    if not message["content"]:
        yield PING
    final = {k: v for k, v in message["usage"].items() if k != "service_tier"}
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
            "usage": final,
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def error_event(fault: StreamFault) -> bytes:
    """The in-stream failure: `event: error` with Anthropic's error object, typed by the fault's code."""
    code = int(fault.code) if fault.code.isdigit() else 500
    kind = ERROR_TYPES.get(code, "api_error" if code >= 500 else "invalid_request_error")
    return _event("error", {"type": "error", "error": {"type": kind, "message": fault.message}})


def plan_reply(
    draft: Draft, request: AnthropicRequest, generation: str, headers: dict[str, str], seed: int, signer: Signer
) -> tuple[ReplyPlan, dict[str, Any]]:
    """The finished reply, and the message it sends; `headers` are added to the draft's scripted ones."""
    all_headers = {**draft.headers, **headers}
    message = message_body(draft, request, generation, signer)
    if not request.stream:
        return ReplyPlan(headers=all_headers, body=orjson.dumps(message)), message
    timing = draft.timing
    unparsed = unparsed_arguments(draft)
    events = Events.paced_but_last(lambda: stream_events(message, timing, unparsed), 2)  # message_delta, message_stop
    return sse_plan(
        all_headers,
        events,
        schedule(timing, seed_int(seed, "pace", generation)),
        timing.fault if timing else None,
        MALFORMED_EVENT,
        lambda fault, _: error_event(fault),
    ), message
