"""A streamed reply as finished SSE events: `data: <chunk>\n\n` …, then `data: [DONE]\n\n`.

The fixed part of every chunk (id, object, created, model) is encoded once per reply; only
each delta is encoded per chunk.
"""

from __future__ import annotations

from typing import Any

import orjson

from emulator import tokens
from emulator.render.draft import Draft
from emulator.render.logprobs import token_logprobs

DONE = b"data: [DONE]\n\n"


def _groups(pieces: list[str], size: int) -> list[list[str]]:
    return [pieces[i : i + size] for i in range(0, len(pieces), size)]


def stream_events(
    draft: Draft,
    completion_id: str,
    created: int,
    *,
    chunk_tokens: int,
    include_usage: bool,
    top_logprobs: int | None,
) -> list[bytes]:
    """Every event of the stream in order: role, content pieces, refusal pieces, finish, usage, [DONE]."""
    head: dict[str, Any] = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": draft.model}
    if draft.service_tier is not None:
        head["service_tier"] = draft.service_tier
    if draft.system_fingerprint is not None:
        head["system_fingerprint"] = draft.system_fingerprint
    prefix = b"data: " + orjson.dumps(head)[:-1] + b',"choices":[{"index":0,"delta":'
    end = (b',"usage":null' if include_usage else b"") + b"}\n\n"
    open_tail = b',"logprobs":null,"finish_reason":null}]' + end

    events = [prefix + b'{"role":"assistant","content":"","refusal":null}' + open_tail]
    position = 0
    for field, text in (("content", draft.content), ("refusal", draft.refusal)):
        if not text:
            continue
        for group in _groups(tokens.pieces(text), chunk_tokens):
            delta = orjson.dumps({field: "".join(group)})
            if top_logprobs is None:
                events.append(prefix + delta + open_tail)
            else:
                entries = token_logprobs(group, top_logprobs, position)
                logprobs = {"content": entries, "refusal": None} if field == "content" else {"content": None, "refusal": entries}
                events.append(prefix + delta + b',"logprobs":' + orjson.dumps(logprobs) + b',"finish_reason":null}]' + end)
            position += len(group)
    events.append(prefix + b'{},"logprobs":null,"finish_reason":' + orjson.dumps(draft.finish_reason) + b"}]" + end)
    if include_usage:
        events.append(b"data: " + orjson.dumps({**head, "choices": [], "usage": draft.usage}) + b"\n\n")
    events.append(DONE)
    return events
