"""A streamed reply as SSE events, made one by one as they are written: `data: <chunk>\n\n` …,
then `data: [DONE]\n\n`.

Order: the role, reasoning pieces (`reasoning` and `reasoning_content` both, then the signature or
encrypted block in its own delta), content pieces, the content's annotations in a delta of their
own, refusal pieces, tool calls (each first with id, type and name, then argument fragments
carrying only the index; a `function_call` finish sends the first as `function_call` deltas
instead), the finish chunk, the usage chunk, [DONE]. The fixed part
of every chunk (id, object, created, model) is encoded once per reply.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.chat.completion import function_call
from zenmux_emulator.faces.chat.logprobs import token_logprobs
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.trim import trimmed

DONE = b"data: [DONE]\n\n"


def reasoning_deltas(details: list[dict[str, Any]] | None, chunk_tokens: int) -> Iterator[dict[str, Any]]:
    """The reasoning text in pieces, each with its matching `reasoning_details` fragment, then
    the signature (or the encrypted block) in a final reasoning delta of its own."""
    if not details:
        return
    main, *rest = details
    key = "summary" if main["type"] == "reasoning.summary" else "text"
    # streamed, each block's `index` is its position in the list (an integer), so that clients
    # that merge indexed deltas (the OpenAI SDK's stream helper) rebuild the list; the JSON body
    # keeps ZenMux's own `"0"` for the openai shape
    base = {**{k: v for k, v in main.items() if k not in (key, "signature")}, "index": 0}
    rest = [{**block, "index": n} for n, block in enumerate(rest, 1)]
    for group in tokens.groups(main[key], chunk_tokens):
        piece = "".join(group)
        yield {"reasoning": piece, "reasoning_content": piece, "reasoning_details": [{**base, key: piece}]}
    closing = ([{**base, "signature": main["signature"]}] if "signature" in main else []) + rest
    if closing:
        yield {"reasoning": None, "reasoning_details": closing}


def tool_call_deltas(calls: Sequence[dict[str, Any]], argument_chars: int, interleaved: bool) -> list[dict[str, Any]]:
    """Each call opens with index, id, type and name (empty arguments); fragments follow with only
    the index, call after call or round-robin across calls."""
    per_call = []
    for index, call in enumerate(calls):
        kind = call["type"]
        inner = call[kind]
        field = "arguments" if kind == "function" else "input"
        text = inner[field]
        opening = {"index": index, "id": call["id"], "type": kind, kind: {"name": inner["name"], field: ""}}
        fragments = [
            {"index": index, kind: {field: text[i : i + argument_chars]}} for i in range(0, len(text), argument_chars)
        ]
        per_call.append([opening, *fragments])
    if interleaved:
        ordered = [
            d
            for round_ in range(max(map(len, per_call), default=0))
            for d in (deltas[round_] for deltas in per_call if round_ < len(deltas))
        ]
    else:
        ordered = [d for deltas in per_call for d in deltas]
    return [{"tool_calls": [d]} for d in ordered]


def function_call_deltas(call: dict[str, str], argument_chars: int) -> list[dict[str, Any]]:
    """The legacy `function_call`: the name with empty arguments, then argument fragments."""
    text = call["arguments"]
    return [
        {"function_call": {"name": call["name"], "arguments": ""}},
        *({"function_call": {"arguments": text[i : i + argument_chars]}} for i in range(0, len(text), argument_chars)),
    ]


@dataclass(frozen=True, slots=True)
class Frame:
    """The fixed bytes around every chunk's delta, encoded once per reply (slotted: an open stream holds it)."""

    prefix: bytes
    """`data: ` and the chunk up to its delta: id, object, created, model (and tier, fingerprint)."""
    end: bytes
    """After the choice: the null usage when usage is streamed, then the event's end."""
    open_tail: bytes
    """After a delta that does not finish the reply."""

    def event(self, delta: dict[str, Any]) -> bytes:
        return self.prefix + orjson.dumps(delta) + self.open_tail

    def logprobs_event(self, delta: dict[str, Any], logprobs: dict[str, Any]) -> bytes:
        return (
            self.prefix
            + orjson.dumps(delta)
            + b',"logprobs":'
            + orjson.dumps(logprobs)
            + b',"finish_reason":null}]'
            + self.end
        )


def chunk_head(draft: Draft, completion_id: str, created: int) -> dict[str, Any]:
    """The fields every chunk starts with."""
    head: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": draft.model,
    }
    if draft.service_tier is not None:
        head["service_tier"] = draft.service_tier
    if draft.system_fingerprint is not None:
        head["system_fingerprint"] = draft.system_fingerprint
    return head


def chunk_frame(head: dict[str, Any], include_usage: bool) -> Frame:
    prefix = b"data: " + orjson.dumps(head)[:-1] + b',"choices":[{"index":0,"delta":'
    end = (b',"usage":null' if include_usage else b"") + b"}\n\n"
    return Frame(prefix=prefix, end=end, open_tail=b',"logprobs":null,"finish_reason":null}]' + end)


MEMO_MAX_CHARS = 2048
"""Texts up to this many characters have their deltas kept (the last `MEMO_TEXTS` texts, each delta
right-sized: orjson's own output holds 4 KiB, foundation/trim.py): a scripted reply's text streams
the same deltas every time; longer texts are cut as they are sent."""
MEMO_TEXTS = 64


def text_deltas(field: str, text: str, chunk_tokens: int) -> Iterable[bytes]:
    """The deltas (`{field: piece}`, encoded) of a text in pieces of `chunk_tokens` tokens."""
    if len(text) > MEMO_MAX_CHARS:
        return _deltas(field, text, chunk_tokens)
    return _kept_deltas(field, text, chunk_tokens)


@lru_cache(maxsize=MEMO_TEXTS)
def _kept_deltas(field: str, text: str, chunk_tokens: int) -> tuple[bytes, ...]:
    return tuple(map(trimmed, _deltas(field, text, chunk_tokens)))


def _deltas(field: str, text: str, chunk_tokens: int) -> Iterator[bytes]:
    for group in tokens.groups(text, chunk_tokens):
        yield orjson.dumps({field: "".join(group)})


def text_events(
    frame: Frame, field: str, text: str, chunk_tokens: int, top_logprobs: int | None, position: int
) -> Generator[bytes, None, int]:
    """The content or refusal in pieces of `chunk_tokens` tokens, with their logprobs when asked
    for; returns the token position after them (logprobs count on across content and refusal:
    without them, the position is not read)."""
    if top_logprobs is None:  # the deltas depend on the text alone: encoded once per text
        for delta in text_deltas(field, text, chunk_tokens):
            yield frame.prefix + delta + frame.open_tail
        return position
    for group in tokens.groups(text, chunk_tokens):
        entries = token_logprobs(group, top_logprobs, position)
        logprobs = (
            {"content": entries, "refusal": None} if field == "content" else {"content": None, "refusal": entries}
        )
        yield frame.logprobs_event({field: "".join(group)}, logprobs)
        position += len(group)
    return position


def call_events(frame: Frame, draft: Draft) -> Iterator[bytes]:
    """The tool calls, or the legacy `function_call` on a `function_call` finish."""
    timing = draft.timing
    argument_chars = timing.argument_chars if timing else 16
    legacy = function_call(draft)
    if legacy is not None:
        deltas = function_call_deltas(legacy, argument_chars)
    elif draft.tool_calls:
        interleaved = timing is not None and timing.tool_calls == "interleaved"
        deltas = tool_call_deltas(draft.tool_calls, argument_chars, interleaved)
    else:
        deltas = []
    for delta in deltas:
        yield frame.event(delta)


def stream_events(
    draft: Draft,
    completion_id: str,
    created: int,
    include_usage: bool,
    top_logprobs: int | None,
) -> Iterator[bytes]:
    """Every event of the stream in order, each made when it is asked for."""
    chunk_tokens = draft.timing.chunk_tokens if draft.timing else 1
    head = chunk_head(draft, completion_id, created)
    frame = chunk_frame(head, include_usage)
    yield frame.prefix + b'{"role":"assistant","content":"","refusal":null}' + frame.open_tail
    for delta in reasoning_deltas(draft.reasoning_details, chunk_tokens):
        yield frame.event(delta)
    position = 0
    if draft.content:
        position = yield from text_events(frame, "content", draft.content, chunk_tokens, top_logprobs, position)
        if draft.annotations:
            yield frame.event({"annotations": draft.annotations})
    if draft.refusal:
        yield from text_events(frame, "refusal", draft.refusal, chunk_tokens, top_logprobs, position)
    yield from call_events(frame, draft)
    yield frame.prefix + b'{},"logprobs":null,"finish_reason":' + orjson.dumps(draft.finish_reason) + b"}]" + frame.end
    if include_usage:
        yield b"data: " + orjson.dumps({**head, "choices": [], "usage": draft.usage}) + b"\n\n"
    yield DONE
