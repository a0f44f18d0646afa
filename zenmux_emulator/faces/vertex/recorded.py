"""The recorder's decoder of generateContent (`FaceSpec.decoder`): a recorded Gemini exchange as a
plain scenario reply, which any face answers with.

Read: one `GenerateContentResponse`, streamGenerateContent's responses as SSE events (`alt=sse`)
or as Google's one JSON array; in each, the parts of the first candidate in order: thought
summaries (`thought: true`) are the reasoning, other texts the content, each `functionCall` a
tool call (its `id` kept when Gemini gave one), and the first `thoughtSignature` the reasoning's
signature (kept with the reasoning, as the chat face's `reasoning_details` carry it). The last
`finishReason` and `usageMetadata` give the finish reason and the usage (thoughts counted within
the completion, as ZenMux counts them); a SAFETY finish without parts is a refusal whose text is
the `finishMessage`. A streamed `error` envelope is the stream's fault, after the events before it.

On replay the Gemini face signs the function calls it sends with its own signer, as it signs
every reply, so the signatures the client passes back verify.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from zenmux_emulator.core.neutral.recorded import Collected, Event, ReplyDecoder, answer_holding, counts, stream_error

FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
"""Gemini's finish reasons as the scenario's; the others (MALFORMED_FUNCTION_CALL, OTHER) none."""


def _candidate(response: dict[str, Any]) -> dict[str, Any]:
    candidates = response.get("candidates")
    first = candidates[0] if isinstance(candidates, list) and candidates else None
    return first if isinstance(first, dict) else {}


def _parts(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def _part(c: Collected, part: dict[str, Any]) -> None:
    """One part into the reply: a thought, a text or a function call, and its signature."""
    if isinstance(part.get("thoughtSignature"), str) and c.signature is None:
        c.signature = part["thoughtSignature"]
    call = part.get("functionCall")
    if isinstance(call, dict):
        c.add_call(str(call.get("id") or ""), str(call.get("name", "")), orjson.dumps(call.get("args") or {}).decode())
        if not call.get("id"):
            del c.tool_calls[-1]["id"]  # Gemini gave none: the replay makes one in the model's style
        return
    text = part.get("text")
    if isinstance(text, str):
        if part.get("thought") is True:
            c.add_text("reasoning", text)
            c.shape = "google"
        else:
            c.add_text("content", text)


def _usage(c: Collected, usage: object) -> None:
    if not isinstance(usage, dict):
        return
    thoughts = usage.get("thoughtsTokenCount") or 0
    candidates = usage.get("candidatesTokenCount") or 0
    completion = candidates + thoughts if isinstance(candidates, int) and isinstance(thoughts, int) else None
    c.usage = counts(
        usage.get("promptTokenCount"),
        completion,
        thoughts or None,
        usage.get("cachedContentTokenCount"),
    )


def _response(c: Collected, response: dict[str, Any]) -> None:
    """One response (the whole answer, or one of a stream's) added to what is collected."""
    if isinstance(response.get("modelVersion"), str):
        c.model = response["modelVersion"]
    candidate = _candidate(response)
    for part in _parts(candidate):
        _part(c, part)
    reason = candidate.get("finishReason")
    if isinstance(reason, str):
        c.finish_reason = FINISH.get(reason)
        message = candidate.get("finishMessage")
        if reason == "SAFETY" and c.content is None and not c.tool_calls and isinstance(message, str):
            c.refusal = message
    if "usageMetadata" in response:
        _usage(c, response["usageMetadata"])


def _finished(c: Collected) -> Collected:
    if c.finish_reason == "stop" and c.tool_calls:
        c.finish_reason = "tool_calls"
    return c


def body(parsed: object) -> Collected | None:
    """One response, or streamGenerateContent's JSON array of them; None when it is not an answer."""
    given = parsed if isinstance(parsed, list) else [parsed]
    responses = [answer for answer in (answer_holding(one, "candidates") for one in given) if answer is not None]
    if not responses or len(responses) != len(given):
        return None
    c = Collected()
    for response in responses:
        _response(c, response)
    if len(responses) == 1:  # one whole answer: its texts are not pieces of a stream
        c.text_pieces.clear()
    return _finished(c)


def stream(events: Sequence[Event]) -> Collected:
    """The SSE events of `alt=sse`, each a whole response; an `error` envelope ends it as a fault."""
    c = Collected()
    for n, event in enumerate(events):
        data = event.json()
        if not isinstance(data, dict):
            continue
        error = data.get("error")
        if isinstance(error, dict):
            c.fault = stream_error(n, error.get("code") or "500", error.get("message", ""))
            break
        _response(c, data)
    return _finished(c)


def paced(event: Event) -> bool:
    """The responses a `stream:` timing paces: all but the last, which carries the finish reason."""
    data = event.json()
    return isinstance(data, dict) and "error" not in data and "finishReason" not in _candidate(data)


DECODER = ReplyDecoder(body, stream, paced)
