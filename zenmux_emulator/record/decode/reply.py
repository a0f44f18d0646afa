"""An exchange as one scenario reply: an answer (content, reasoning, tool calls, usage, pacing),
an error in ZenMux's envelope, a broken stream, or, for what no decoder reads, the raw bytes."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.foundation.envelope import DEFAULT_TYPES
from zenmux_emulator.record.capture.exchange import Event, Exchange
from zenmux_emulator.record.capture.pacing import measured
from zenmux_emulator.record.decode import anthropic, chat, responses
from zenmux_emulator.record.decode.collected import Collected
from zenmux_emulator.record.decode.inputs import INPUT_DECODERS
from zenmux_emulator.scenario.schema import HEADER_VALUE

KEPT_HEADERS = re.compile(
    r"^(retry-after|retry-after-ms|x-ratelimit-[\w-]+|anthropic-ratelimit-[\w-]+)$", re.IGNORECASE
)
"""The upstream's response headers a recorded reply keeps: the ones clients act on. Nothing else
(cookies, request ids, tracing) is written."""
FINISH_REASONS = frozenset({"stop", "length", "content_filter", "tool_calls", "function_call"})
UNREACHABLE_STATUS = 502

Decoder = tuple[Callable[[dict[str, Any]], Collected], Callable[[list[Event]], Collected], Callable[[Event], bool]]
DECODERS: dict[str, Decoder] = {
    "chat": (chat.body, chat.stream, chat.paced),
    "anthropic": (anthropic.body, anthropic.stream, anthropic.paced),
    "responses": (responses.body, responses.stream, lambda e: e.name in responses.PACED),
}
"""Per face: the body's decoder, the stream's, and which events a `stream:` timing paces (the
closing ones follow at once, so they are left out of the measured gaps)."""
SHAPES = {"chat": "choices", "anthropic": "content", "responses": "output"}
"""The list every successful answer of a face holds: a 200 without it is not an answer."""


@dataclass(slots=True)
class Decoded:
    """The reply to write, and whether it records a failure (written only with --record-errors)."""

    reply: dict[str, Any]
    failed: bool


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if KEPT_HEADERS.match(k) and HEADER_VALUE.match(v)}


def unreachable(upstream: str, why: str) -> tuple[str, str]:
    """The 502's type and message when the upstream gave no answer."""
    return DEFAULT_TYPES[UNREACHABLE_STATUS], f"The upstream {upstream} could not be reached ({why})"


def decode(face: str, exchange: Exchange, requested_model: str, upstream: str, texts: tuple[str, ...] = ()) -> Decoded:
    if exchange.unreachable is not None:
        kind, message = unreachable(upstream, exchange.unreachable)
        return Decoded({"error": {"status": UNREACHABLE_STATUS, "type": kind, "message": message}}, True)
    headers = kept_headers(exchange.headers)
    if exchange.status >= 400:
        return Decoded(_error(exchange, headers), True)
    by_inputs = INPUT_DECODERS.get(face)
    if by_inputs is not None and not exchange.stream:
        answer = _json(exchange.body)
        reply = by_inputs(answer, texts) if isinstance(answer, dict) else None
        if reply is not None:
            return Decoded({**reply, "headers": headers} if headers else reply, exchange.broken)
    decoder = DECODERS.get(face)
    if decoder is None:
        return Decoded(_raw(exchange, headers), exchange.broken)
    if exchange.stream:
        if not any(isinstance(_json(event.data.encode()), dict) for event in exchange.events):
            return Decoded(_raw(exchange, headers), True)  # no event is JSON: garbage, a failed call
        collected = decoder[1](exchange.events)
    else:
        answer = _json(exchange.body)
        if not isinstance(answer, dict) or answer.get("error") or not isinstance(answer.get(SHAPES[face]), list):
            return Decoded(_raw(exchange, headers), True)  # an error inside a 200, or not an answer: bytes
        collected = decoder[0](answer)
    if collected.finish_reason not in FINISH_REASONS:
        collected.finish_reason = None
    reply = collected.reply(requested_model)
    if headers:
        reply["headers"] = headers
    failed = collected.fault is not None or exchange.broken
    if exchange.stream:
        timing: dict[str, Any] = {**measured(exchange.events, decoder[2]), **collected.chunking()}
        if collected.fault is not None:
            timing["fault"] = collected.fault
        elif exchange.broken:
            timing["fault"] = {"kind": "disconnect", "after_chunks": len(exchange.events)}
        if timing:
            reply["stream"] = timing
    return Decoded(reply, failed)


def _json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _error(exchange: Exchange, headers: dict[str, str]) -> dict[str, Any]:
    """ZenMux's envelope as an `error:` reply; any other error body as `raw:` bytes."""
    envelope = _json(exchange.body)
    error = envelope.get("error") if isinstance(envelope, dict) else None
    if isinstance(error, dict) and isinstance(error.get("type"), str) and isinstance(error.get("message"), str):
        reply: dict[str, Any] = {"status": exchange.status, "type": error["type"], "message": error["message"]}
        if headers:
            reply["headers"] = headers
        return {"error": reply}
    return _raw(exchange, headers)


def _raw(exchange: Exchange, headers: dict[str, str]) -> dict[str, Any]:
    body = (
        exchange.body
        if not exchange.stream
        else b"".join(
            (f"event: {e.name}\n" if e.name else "").encode() + b"data: " + e.data.encode() + b"\n\n"
            for e in exchange.events
        )
    )
    raw: dict[str, Any] = {
        "status": exchange.status,
        "content_type": exchange.content_type or "application/json",
        "body": body.decode("utf-8", "replace"),
    }
    if headers:
        raw["headers"] = headers
    return {"raw": raw}
