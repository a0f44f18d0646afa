"""A draft as Google's generateContent answers it: one `GenerateContentResponse`, or a stream of
them, each whole (SSE `data:` events with `alt=sse`, one JSON array without).

Parts, in order: thought summaries (`thought: true`, only with `includeThoughts`), the text, the
image `responseModalities` asks for (`inlineData`, image_output.py), one `functionCall` per tool
call, the first signed (`thoughtSignature` beside it). A stream sends the
thoughts and the text a few tokens per response, each call whole, and `finishReason` with the
final `usageMetadata` on the last; a refusal is a SAFETY finish without parts.

The misbehaviour catalogue in Gemini's terms (`draft.misbehaved`, `draft.cut_call`): arguments
that are not JSON are a call Gemini could not form, `MALFORMED_FUNCTION_CALL` with no
`functionCall` part and the broken text in `finishMessage`; a call cut by the length stop is left
out (Gemini sends a call only once it is whole) under `MAX_TOKENS`; a content filter is `SAFETY`
with a blocked safety rating; the other faults show as the parts they leave.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.common.call_arguments import call_arguments
from zenmux_emulator.faces.vertex import thought_signatures
from zenmux_emulator.faces.vertex.image_output import ImageOutput, with_image_tokens
from zenmux_emulator.faces.vertex.request import GeminiRequest, by_modality
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.foundation.ids import digest, seed_int
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.scenario.schema import StreamFault
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

FINISH_REASONS = {
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "tool_calls": "STOP",
    "function_call": "STOP",
}
MALFORMED = "MALFORMED_FUNCTION_CALL"
BLOCKED_RATING = {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
"""The safety rating a `content-filter` fault's candidate carries (what blocked it)."""
MALFORMED_EVENT = b'data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "unterminated\r\n\r\n'


def malformed_call(draft: Draft) -> str | None:
    """The finishMessage of a call Gemini could not form (`tool-args-invalid-json`), else None."""
    if draft.misbehaved is None or draft.misbehaved.fault != "tool-args-invalid-json":
        return None
    for call in draft.tool_calls:
        text = call["function"]["arguments"] if call["type"] == "function" else None
        if text is not None and not _is_json(text):
            return f"Malformed function call: call:default_api:{call['function']['name']}{text}"
    return None


def _is_json(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def finish_reason(draft: Draft) -> str:
    if malformed_call(draft) is not None:
        return MALFORMED
    if draft.refusal is not None and draft.finish_reason != "length":
        return "SAFETY"
    return FINISH_REASONS.get(draft.finish_reason, "STOP")


def call_parts(draft: Draft, request: GeminiRequest, signer: Signer) -> list[dict[str, Any]]:
    """One `functionCall` part per tool call; the first carries the signature."""
    parts: list[dict[str, Any]] = []
    if malformed_call(draft) is not None:
        return parts  # Gemini could not form the call: no functionCall part at all
    calls = draft.tool_calls[:-1] if draft.cut_call else draft.tool_calls  # a cut call is never sent
    for call in calls:
        function: dict[str, Any] = {"name": call[call["type"]]["name"], "args": call_arguments(call)}
        if request.uses_call_ids:
            function = {"id": call["id"], **function}
        part: dict[str, Any] = {"functionCall": function}
        if not parts:
            part["thoughtSignature"] = thought_signatures.sign(signer, part)
        parts.append(part)
    return parts


def usage_metadata(draft: Draft, final: bool = True, media: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Google's usage: the thoughts counted apart from the candidates and within the total; each
    count of the prompt and the candidates by modality."""
    usage = draft.usage
    prompt = int(usage["prompt_tokens"])
    if not final:
        return {"promptTokenCount": prompt, "totalTokenCount": prompt}
    thoughts = int(usage["completion_tokens_details"]["reasoning_tokens"])
    cached = int(usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
    metadata: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": int(usage["completion_tokens"]) - thoughts,
        "totalTokenCount": int(usage["total_tokens"]),
    }
    if thoughts:
        metadata["thoughtsTokenCount"] = thoughts
    if cached:
        metadata["cachedContentTokenCount"] = cached
    metadata["promptTokensDetails"] = by_modality(prompt, media or {})
    metadata["candidatesTokensDetails"] = by_modality(metadata["candidatesTokenCount"], {})
    return metadata


def reply_text(draft: Draft, request: GeminiRequest) -> str | None:
    """The reply's text; under `text/x.enum` an unscripted value (a JSON string) bare, as Google sends it."""
    text = draft.content
    if text and request.enum_text and text.startswith('"'):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
        return value if isinstance(value, str) else text
    return text


def create_time(created: int) -> str:
    return datetime.fromtimestamp(created, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Rendered:
    """One reply's pieces, and the responses made of them."""

    def __init__(
        self,
        draft: Draft,
        request: GeminiRequest,
        generation: str,
        created: int,
        signer: Signer,
        image: ImageOutput | None = None,
    ) -> None:
        self.draft, self.request, self.image = draft, request, image
        self.thoughts = draft.reasoning if request.include_thoughts and draft.reasoning else None
        self.calls = [] if draft.refusal else call_parts(draft, request, signer)
        self.text = reply_text(draft, request) if image is None or image.text else None
        self.head = {
            "modelVersion": draft.model,
            "createTime": create_time(created),
            "responseId": response_id(generation),
        }

    def response(self, parts: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if final:
            candidate["finishReason"] = finish_reason(self.draft)
            message = malformed_call(self.draft) or self.draft.refusal
            if message:
                candidate["finishMessage"] = message
            if self.draft.misbehaved is not None and self.draft.misbehaved.fault == "content-filter":
                candidate["safetyRatings"] = [BLOCKED_RATING]
        usage = usage_metadata(self.draft, final, self.request.media_tokens)
        if final and self.image is not None:
            usage = with_image_tokens(usage, self.image.text)
        return {"candidates": [candidate], "usageMetadata": usage, **self.head}

    def parts(self) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        if self.thoughts:
            parts.append({"text": self.thoughts, "thought": True})
        if self.text and not self.draft.refusal:
            parts.append({"text": self.text})
        if self.image is not None:
            parts.append(self.image.part)
        return parts + self.calls

    def body(self) -> dict[str, Any]:
        return self.response(self.parts(), final=True)

    def pieces(self, chunk_tokens: int) -> Iterator[list[dict[str, Any]]]:
        """The parts of each streamed response but the last, made one by one."""
        if self.thoughts:
            for group in tokens.groups(self.thoughts, chunk_tokens):
                yield [{"text": "".join(group), "thought": True}]
        if self.text and not self.draft.refusal:
            for group in tokens.groups(self.text, chunk_tokens):
                yield [{"text": "".join(group)}]
        if self.image is not None:
            yield [self.image.part]
        for call in self.calls:
            yield [call]

    def stream(self, chunk_tokens: int) -> Iterator[dict[str, Any]]:
        """Every response of the stream: `finishReason` and the whole usage ride on the last."""
        held: list[dict[str, Any]] | None = None
        for parts in self.pieces(chunk_tokens):
            if held is not None:
                yield self.response(held, final=False)
            held = parts
        yield self.response(held or [], final=True)


def response_id(generation: str) -> str:
    return digest("response", generation, size=22)


def sse_event(response: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(response) + b"\r\n\r\n"


def error_event(fault: StreamFault, _position: int) -> bytes:
    """The in-stream failure: ZenMux's envelope as one `data:` event, typed by the fault's code."""
    code = int(fault.code) if fault.code.isdigit() else 500
    kind = "internal_server_error" if code >= 500 else "invalid_params"
    return b"data: " + error_body(code, kind, fault.message) + b"\r\n\r\n"


def plan_reply(
    draft: Draft,
    request: GeminiRequest,
    generation: str,
    created: int,
    headers: dict[str, str],
    seed: int,
    signer: Signer,
    image: ImageOutput | None = None,
) -> ReplyPlan:
    """The finished reply; `headers` are added to the draft's scripted ones; an image asked for is
    sent after the text (`image_output`)."""
    all_headers = {**draft.headers, **headers}
    rendered = Rendered(draft, request, generation, created, signer, image)
    timing = draft.timing
    chunk_tokens = timing.chunk_tokens if timing else 1
    if not request.streamed:
        return ReplyPlan(all_headers, orjson.dumps(rendered.body()))
    if not request.stream:  # streamGenerateContent without alt=sse: Google's one JSON array
        return ReplyPlan(
            all_headers, b"[" + b",\r\n".join(orjson.dumps(r) for r in rendered.stream(chunk_tokens)) + b"]"
        )
    events = Events.paced_but_last(lambda: (sse_event(r) for r in rendered.stream(chunk_tokens)), 0)
    return sse_plan(
        all_headers,
        events,
        schedule(timing, seed_int(seed, "pace", generation)),
        timing.fault if timing else None,
        MALFORMED_EVENT,
        error_event,
    )
