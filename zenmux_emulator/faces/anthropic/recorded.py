"""The recorder's decoder of Anthropic Messages: a `message` body, or its named-event stream, as a
scenario reply (`FaceSpec.decoder`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from zenmux_emulator.core.neutral.recorded import Collected, Event, ReplyDecoder, answer_holding, counts, stream_error
from zenmux_emulator.faces.anthropic.errors import ERROR_TYPES

FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
ERROR_CODES = {kind: str(status) for status, kind in ERROR_TYPES.items()}


def _usage(c: Collected, usage: object) -> None:
    if not isinstance(usage, dict):
        return
    cached = usage.get("cache_read_input_tokens") or 0
    prompt = usage.get("input_tokens")
    if isinstance(prompt, int):
        c.usage.update(counts(prompt + (cached if isinstance(cached, int) else 0), None, None, cached))
    c.usage.update(counts(None, usage.get("output_tokens")))


def _blocks(c: Collected, blocks: list[dict[str, Any]]) -> None:
    texts = []
    for block in blocks:
        kind = block.get("type")
        if kind == "thinking" and c.reasoning is None:
            c.reasoning, c.shape = block.get("thinking", ""), "anthropic"
            if isinstance(block.get("signature"), str):
                c.signature = block["signature"]
        elif kind == "text":
            texts.append(block.get("text", ""))
        elif kind == "tool_use":
            c.add_call(block.get("id", ""), block.get("name", ""), orjson.dumps(block.get("input") or {}).decode())
    if texts:
        c.content = "".join(texts)


def body(parsed: object) -> Collected | None:
    answer = answer_holding(parsed, "content")
    return None if answer is None else _message(answer)


def _message(answer: dict[str, Any]) -> Collected:
    c = Collected(model=answer.get("model"))
    _blocks(c, answer.get("content") or [])
    c.finish_reason = FINISH.get(str(answer.get("stop_reason")))
    _usage(c, answer.get("usage"))
    return c


def stream(events: Sequence[Event]) -> Collected:
    c = Collected()
    blocks: dict[int, dict[str, Any]] = {}
    for n, event in enumerate(events):
        data = event.json()
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind == "message_start":
            message = data.get("message") or {}
            c.model = message.get("model")
            _usage(c, message.get("usage"))
        elif kind == "content_block_start":
            blocks[data.get("index", len(blocks))] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            block = blocks.setdefault(data.get("index", 0), {})
            delta = data.get("delta") or {}
            _grow(c, block, delta)
        elif kind == "message_delta":
            c.finish_reason = FINISH.get(str((data.get("delta") or {}).get("stop_reason")))
            _usage(c, data.get("usage"))
        elif kind == "error":
            error = data.get("error") or {}
            c.fault = stream_error(n, ERROR_CODES.get(str(error.get("type")), "500"), error.get("message", ""))
            break
    for block in blocks.values():
        if block.get("type") == "tool_use":
            block["input"] = orjson.loads(block.pop("partial", "") or "{}")
    _blocks(c, [blocks[i] for i in sorted(blocks)])
    return c


def _grow(c: Collected, block: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + delta.get("text", "")
        c.text_pieces.append(delta.get("text", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        c.text_pieces.append(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = delta.get("signature", "")
    elif kind == "input_json_delta":
        block["partial"] = block.get("partial", "") + delta.get("partial_json", "")
        c.argument_pieces.append(delta.get("partial_json", ""))


def paced(event: Event) -> bool:
    """The events a `stream:` timing paces: all but message_delta and message_stop."""
    return event.name not in ("message_delta", "message_stop")


DECODER = ReplyDecoder(body, stream, paced)
