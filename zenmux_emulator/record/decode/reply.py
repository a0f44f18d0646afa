"""An exchange as one scenario reply: an answer (content, reasoning, tool calls, usage, pacing),
an error in ZenMux's envelope, a broken stream, or, for what no decoder reads, the raw bytes.

Face-neutral: each face's own decoder (`FaceSpec.decoder`, in its folder) reads its answers; a face
without one has its exchanges kept as raw replies."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.core.neutral.recorded import Collected, Decoder, InputsDecoder, ReplyDecoder
from zenmux_emulator.foundation.envelope import DEFAULT_TYPES
from zenmux_emulator.record.capture.exchange import Exchange
from zenmux_emulator.record.capture.pacing import measured
from zenmux_emulator.scenario.schema import HEADER_VALUE

KEPT_HEADERS = re.compile(
    r"^(retry-after|retry-after-ms|x-ratelimit-[\w-]+|anthropic-ratelimit-[\w-]+)$", re.IGNORECASE
)
"""The upstream's response headers a recorded reply keeps: the ones clients act on. Nothing else
(cookies, request ids, tracing) is written."""
FINISH_REASONS = frozenset({"stop", "length", "content_filter", "tool_calls", "function_call"})
UNREACHABLE_STATUS = 502


MEDIA_TYPES = ("audio/", "image/", "video/", "application/octet-stream")
MEDIA_FIELDS = (b'"b64_json"', b'"bytesBase64Encoded"', b'"inlineData"', b'"audio":')
"""Fields of base64 media in a JSON body or event (images, Imagen's and Gemini's, ZenMux's speech)."""
INLINE_BYTES = 64 * 1024
"""A raw body larger than this is kept in a file whatever it holds."""


@dataclass(slots=True)
class Decoded:
    """The reply to write, and whether it records a failure (written only with --record-errors);
    `media`: a raw reply's body kept apart from the YAML (audio, images, base64 media), which the
    recorder writes as a file beside it (`raw.body_file`)."""

    reply: dict[str, Any]
    failed: bool
    media: bytes | None = None


def kept_apart(content_type: str, body: bytes) -> bool:
    """Whether a raw body goes to a file: media, bytes that are not text, base64 media in JSON, or large."""
    if content_type.lower().startswith(MEDIA_TYPES) or len(body) > INLINE_BYTES:
        return True
    if any(field in body for field in MEDIA_FIELDS):
        return True
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _apart(decoded: Decoded, body: bytes) -> Decoded:
    """A raw reply whose body is media, with its body taken out of the reply into `media`."""
    raw = decoded.reply.get("raw")
    if isinstance(raw, dict) and kept_apart(str(raw.get("content_type", "")), body):
        raw.pop("body", None)
        decoded.media = body
    return decoded


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if KEPT_HEADERS.match(k) and HEADER_VALUE.match(v)}


def unreachable(upstream: str, why: str) -> tuple[str, str]:
    """The 502's type and message when the upstream gave no answer."""
    return DEFAULT_TYPES[UNREACHABLE_STATUS], f"The upstream {upstream} could not be reached ({why})"


def decode(
    decoder: Decoder | None, exchange: Exchange, requested_model: str, upstream: str, texts: tuple[str, ...] = ()
) -> Decoded:
    """The exchange as a reply, read by the face's `decoder` (None: kept raw); a raw body of media
    kept apart (`Decoded.media`)."""
    return _apart(_decode(decoder, exchange, requested_model, upstream, texts), _body(exchange))


def _decode(
    decoder: Decoder | None, exchange: Exchange, requested_model: str, upstream: str, texts: tuple[str, ...]
) -> Decoded:
    if exchange.unreachable is not None:
        kind, message = unreachable(upstream, exchange.unreachable)
        return Decoded({"error": {"status": UNREACHABLE_STATUS, "type": kind, "message": message}}, True)
    headers = kept_headers(exchange.headers)
    if exchange.status >= 400:
        return Decoded(_error(exchange, headers), True)
    if isinstance(decoder, InputsDecoder):
        return _by_inputs(decoder, exchange, texts, headers)
    if decoder is None:
        return Decoded(_raw(exchange, headers), exchange.broken)
    if exchange.stream:
        if not any(isinstance(_json(event.data.encode()), dict) for event in exchange.events):
            return Decoded(_raw(exchange, headers), True)  # no event is JSON: garbage, a failed call
        return _answer(decoder, decoder.stream(exchange.events), exchange, requested_model, headers)
    collected = decoder.body(_json(exchange.body))
    if collected is None:
        return Decoded(_raw(exchange, headers), True)  # an error inside a 200, or not an answer: bytes
    return _answer(decoder, collected, exchange, requested_model, headers)


def _by_inputs(decoder: InputsDecoder, exchange: Exchange, texts: tuple[str, ...], headers: dict[str, str]) -> Decoded:
    """A reply keyed by the request's inputs, or the raw bytes when the answer reads otherwise."""
    answer = None if exchange.stream else _json(exchange.body)
    reply = decoder.read(answer, texts) if isinstance(answer, dict) else None
    if reply is None:
        return Decoded(_raw(exchange, headers), exchange.broken)
    return Decoded({**reply, "headers": headers} if headers else reply, exchange.broken)


def _answer(
    decoder: ReplyDecoder, collected: Collected, exchange: Exchange, requested_model: str, headers: dict[str, str]
) -> Decoded:
    """What the decoder collected as the reply, with the kept headers and a stream's timing."""
    if collected.finish_reason not in FINISH_REASONS:
        collected.finish_reason = None
    reply = collected.reply(requested_model)
    if headers:
        reply["headers"] = headers
    failed = collected.fault is not None or exchange.broken
    timing = _timing(decoder, collected, exchange) if exchange.stream else collected.chunking()
    if timing:  # a body in pieces (Gemini's JSON array) keeps only how its texts were cut
        reply["stream"] = timing
    return Decoded(reply, failed)


def _timing(decoder: ReplyDecoder, collected: Collected, exchange: Exchange) -> dict[str, Any]:
    """A stream's `stream:` timing: its measured pacing, its chunk sizes, and how it ended."""
    timing: dict[str, Any] = {**measured(exchange.events, decoder.paced), **collected.chunking()}
    if collected.fault is not None:
        timing["fault"] = collected.fault
    elif exchange.broken:
        timing["fault"] = {"kind": "disconnect", "after_chunks": len(exchange.events)}
    return timing


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


def _body(exchange: Exchange) -> bytes:
    """The answer's bytes: its body, or a stream's events as they were framed."""
    if not exchange.stream:
        return exchange.body
    return b"".join(
        (f"event: {e.name}\n" if e.name else "").encode() + b"data: " + e.data.encode() + b"\n\n"
        for e in exchange.events
    )


def _raw(exchange: Exchange, headers: dict[str, str]) -> dict[str, Any]:
    body = _body(exchange)
    raw: dict[str, Any] = {
        "status": exchange.status,
        "content_type": exchange.content_type or "application/json",
        "body": body.decode("utf-8", "replace"),
    }
    if headers:
        raw["headers"] = headers
    return {"raw": raw}
