"""The recorder's decoder of chat completions: a `chat.completion` body, or its `chat.completion.chunk`
stream, as a scenario reply (`FaceSpec.decoder`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zenmux_emulator.core.neutral.recorded import Collected, Event, ReplyDecoder, answer_holding, counts, stream_error


def _usage(c: Collected, usage: object) -> None:
    if isinstance(usage, dict):
        c.usage = counts(
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
            (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"),
            (usage.get("prompt_tokens_details") or {}).get("cached_tokens"),
        )


def _head(c: Collected, body: dict[str, Any]) -> None:
    c.model = body.get("model") if isinstance(body.get("model"), str) else c.model
    c.service_tier = body.get("service_tier") if isinstance(body.get("service_tier"), str) else c.service_tier
    fingerprint = body.get("system_fingerprint")
    c.system_fingerprint = fingerprint if isinstance(fingerprint, str) else c.system_fingerprint


def body(parsed: object) -> Collected | None:
    answer = answer_holding(parsed, "choices")
    if answer is None:
        return None
    c = Collected()
    _head(c, answer)
    choice = (answer.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    c.content, c.refusal = message.get("content"), message.get("refusal")
    c.read_details(message.get("reasoning_details"))
    c.read_annotations(message.get("annotations"))
    if isinstance(message.get("reasoning"), str):
        c.reasoning = message["reasoning"]
    for call in message.get("tool_calls") or []:
        kind = call.get("type", "function")
        inner = call.get(kind) or {}
        c.add_call(
            call.get("id", ""),
            inner.get("name", ""),
            inner.get("arguments"),
            inner.get("input") if kind == "custom" else None,
        )
    c.finish_reason = choice.get("finish_reason")
    _usage(c, answer.get("usage"))
    return c


def stream(events: Sequence[Event]) -> Collected:
    c = Collected()
    calls: dict[int, dict[str, Any]] = {}
    details: list[dict[str, Any]] = []
    for n, event in enumerate(events):
        chunk = event.json()
        if not isinstance(chunk, dict):
            continue
        error = chunk.get("error")
        if isinstance(error, dict):
            c.fault = stream_error(n, error.get("code", "500"), error.get("message", ""))
            break
        _head(c, chunk)
        _usage(c, chunk.get("usage"))
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            c.add_text("reasoning", delta.get("reasoning"))
            c.add_text("content", delta.get("content"))
            c.add_text("refusal", delta.get("refusal"))
            c.read_annotations(delta.get("annotations"))
            for fragment in delta.get("reasoning_details") or []:
                if isinstance(fragment, dict):
                    details.append(fragment)
            for fragment in delta.get("tool_calls") or []:
                call = calls.setdefault(
                    fragment.get("index", 0), {"id": "", "name": "", "args": "", "kind": "function"}
                )
                call["id"] = fragment.get("id") or call["id"]
                kind = fragment.get("type") or call["kind"]
                call["kind"] = kind
                inner = fragment.get(kind) or {}
                call["name"] = inner.get("name") or call["name"]
                piece = inner.get("arguments" if kind == "function" else "input") or ""
                if piece:
                    call["args"] += piece
                    c.argument_pieces.append(piece)
            if choice.get("finish_reason"):
                c.finish_reason = choice["finish_reason"]
    reasoning = c.reasoning
    if reasoning is None:  # no `delta.reasoning`: the text is in the details fragments alone
        pieces = [d.get("text") or d.get("summary") for d in details]
        reasoning = "".join(p for p in pieces if isinstance(p, str)) if any(pieces) else None
    c.read_details([_signature_or_block(d) for d in details])
    c.reasoning = reasoning
    for _, call in sorted(calls.items()):
        custom = call["args"] if call["kind"] == "custom" else None
        c.add_call(call["id"], call["name"], call["args"] if custom is None else None, custom)
    return c


def _signature_or_block(fragment: dict[str, Any]) -> dict[str, Any]:
    """A streamed details fragment: its text is already gathered from `delta.reasoning`; the
    signature and the encrypted block are what is read from it."""
    return {k: v for k, v in fragment.items() if k not in ("text", "summary")}


def paced(event: Event) -> bool:
    """The chunks a `stream:` timing paces: all but the usage chunk and `[DONE]`."""
    chunk = event.json()
    return isinstance(chunk, dict) and bool(chunk.get("choices"))


DECODER = ReplyDecoder(body, stream, paced)
