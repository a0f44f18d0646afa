"""A recorded answer in the neutral (chat) terms a scenario reply uses, and what a face registers
to read its own answers into them (`FaceSpec.decoder`).

The recorder (`record/`) captures an upstream's answer as a status, headers and a body or its
server-sent `Event`s; a face's `ReplyDecoder` reads its body or events into a `Collected`, which
writes the scenario reply; a face whose reply is keyed by the request's inputs (embeddings,
rerank) registers an `InputsDecoder` instead. What no decoder reads is kept as the raw bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from zenmux_emulator.foundation import tokens

ANTHROPIC_FORMAT = "anthropic-claude-v1"
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")


def arguments_value(text: str) -> Any:
    """Tool-call arguments as a mapping when the emulator would send that mapping as exactly this
    text (readable and byte-identical on replay), else the text as it came."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    if isinstance(value, dict) and orjson.dumps(value).decode() == text:
        return value
    return text


@dataclass(slots=True)
class Event:
    """One server-sent event: its name (if any), its data, and when it arrived (ms after sending)."""

    name: str | None
    data: str
    at_ms: float

    def json(self) -> object:
        """The data as JSON, or None when it is not JSON (`[DONE]`, a malformed event)."""
        try:
            return orjson.loads(self.data)
        except orjson.JSONDecodeError:
            return None


@dataclass(slots=True)
class Collected:
    """The reply's parts as they are read from a body or gathered from stream events."""

    content: str | None = None
    refusal: str | None = None
    reasoning: str | None = None
    shape: str | None = None
    signature: str | None = None
    encrypted: dict[str, str] | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    service_tier: str | None = None
    system_fingerprint: str | None = None
    fault: dict[str, Any] | None = None
    annotations: list[dict[str, Any]] = field(default_factory=list)
    """The content's `url_citation` annotations, as the scenario's `annotations` takes them."""
    text_pieces: list[str] = field(default_factory=list)
    """Each streamed content or reasoning piece, for the recorded chunk size."""
    argument_pieces: list[str] = field(default_factory=list)
    """Each streamed tool-call arguments fragment, for the recorded fragment size."""

    def add_text(self, kind: str, piece: str | None) -> None:
        """Append a streamed piece of content, refusal or reasoning."""
        if not piece:
            return
        setattr(self, kind, (getattr(self, kind) or "") + piece)
        self.text_pieces.append(piece)

    def add_call(self, call_id: str, name: str, arguments: str | None = None, custom: str | None = None) -> None:
        if custom is not None:
            self.tool_calls.append({"id": call_id, "name": name, "type": "custom", "input": custom})
        else:
            self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments or ""})

    def read_annotations(self, annotations: object) -> None:
        """`url_citation` annotations, with the keys a scenario's citation has."""
        for note in annotations if isinstance(annotations, list) else ():
            cite = note.get("url_citation") if isinstance(note, dict) else None
            if note.get("type") == "url_citation" and isinstance(cite, dict):
                self.annotations.append(
                    {
                        "type": "url_citation",
                        "url_citation": {k: cite[k] for k in ("url", "title", "start_index", "end_index") if k in cite},
                    }
                )

    def read_details(self, details: object) -> None:
        """`reasoning_details` in ZenMux's shapes: the text (or summary), its signature or the
        encrypted block, as they came."""
        if not isinstance(details, list):
            return
        for block in details:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "reasoning.text":
                if isinstance(block.get("text"), str) and self.reasoning is None:
                    self.reasoning = block["text"]
                if isinstance(block.get("signature"), str):
                    self.signature = block["signature"]
                self.shape = "anthropic" if block.get("format") == ANTHROPIC_FORMAT else "google"
            elif kind == "reasoning.summary":
                if isinstance(block.get("summary"), str) and self.reasoning is None:
                    self.reasoning = block["summary"]
                self.shape = "openai"
            elif kind == "reasoning.encrypted" and isinstance(block.get("data"), str):
                self.encrypted = {"id": str(block.get("id", "")), "data": block["data"]}
                self.shape = "openai"

    def chunking(self) -> dict[str, int]:
        """Chunk sizes that cut the same text into as many events again."""
        sizes: dict[str, int] = {}
        if self.text_pieces:
            sizes["chunk_tokens"] = max(max(tokens.count(p) for p in self.text_pieces), 1)
        if self.argument_pieces:
            sizes["argument_chars"] = max(max(len(p) for p in self.argument_pieces), 1)
        return sizes

    def reply(self, requested_model: str) -> dict[str, Any]:
        """The scenario reply, keys in a readable order; only what was said."""
        reply: dict[str, Any] = {"verbatim": True}
        if self.content is not None and (self.content or not self.tool_calls):
            reply["content"] = self.content
        if self.annotations and self.content:
            reply["annotations"] = self.annotations
        if self.refusal:
            reply["refusal"] = self.refusal
        reply.update(self._reasoning())
        if self.tool_calls:
            reply["tool_calls"] = [
                {**call, "arguments": arguments_value(call["arguments"])} if "arguments" in call else call
                for call in self.tool_calls
            ]
        if self.finish_reason is not None:
            reply["finish_reason"] = self.finish_reason
        if self.usage:
            reply["usage"] = {k: self.usage[k] for k in USAGE_KEYS if k in self.usage}
        if self.model and self.model != requested_model:
            reply["model"] = self.model
        if self.service_tier is not None:
            reply["service_tier"] = self.service_tier
        if self.system_fingerprint is not None:
            reply["system_fingerprint"] = self.system_fingerprint
        return reply

    def _reasoning(self) -> dict[str, Any]:
        """The reasoning keys of the reply: the text, its shape, the upstream's signature or block."""
        if self.reasoning is None and self.encrypted is None:
            return {}
        keys: dict[str, Any] = {"reasoning": self.reasoning or ""}
        if self.shape is not None:
            keys["reasoning_shape"] = self.shape
        if self.signature is not None and self.shape != "openai":
            keys["reasoning_signature"] = self.signature
        if self.encrypted is not None:
            keys["reasoning_encrypted"] = self.encrypted
        return keys


def counts(prompt: object, completion: object, reasoning: object = None, cached: object = None) -> dict[str, int]:
    """A usage override from whichever counts are integers."""
    named = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "reasoning_tokens": reasoning,
        "cached_tokens": cached,
    }
    return {k: v for k, v in named.items() if isinstance(v, int) and not isinstance(v, bool) and v >= 0}


def stream_error(after: int, code: object, message: object) -> dict[str, Any]:
    """A stream's `fault:` for the error event that ended it, after the events before it."""
    return {"kind": "error", "after_chunks": after, "code": str(code), "message": str(message)}


def answer_holding(answer: object, key: str) -> dict[str, Any] | None:
    """The answer when it is a successful one: a JSON object without `error` whose `key` is a list
    (`choices`, `content`, `output`); None for anything else (an error inside a 200, not an answer)."""
    if not isinstance(answer, dict) or answer.get("error") or not isinstance(answer.get(key), list):
        return None
    return answer


@dataclass(frozen=True, slots=True)
class ReplyDecoder:
    """How a face's generation answers read as a `Collected`."""

    body: Callable[[object], Collected | None]
    """The parsed JSON body (any JSON value); None when it is not a successful answer (kept raw)."""
    stream: Callable[[Sequence[Event]], Collected]
    """The server-sent events of a streamed answer (at least one of them is JSON)."""
    paced: Callable[[Event], bool]
    """Which events a `stream:` timing paces (the closing ones follow at once: left out of the gaps)."""


@dataclass(frozen=True, slots=True)
class InputsDecoder:
    """How a face whose reply is keyed by the request's input texts (embeddings, rerank) reads its
    JSON answer as a scenario reply; None when it reads otherwise (kept raw)."""

    read: Callable[[dict[str, Any], Sequence[str]], dict[str, Any] | None]


Decoder = ReplyDecoder | InputsDecoder
"""What a face registers for the recorder (`FaceSpec.decoder`)."""
