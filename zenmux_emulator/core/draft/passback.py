"""Signed reasoning passed back on tool turns must be exactly what the emulator minted.

The check reads chat-shaped messages (`reasoning_details` on assistant tool-call messages); a
face whose conversation carries reasoning otherwise maps it to that shape.

When reasoning is on, an assistant message with tool calls that the conversation is still
answering (it is followed only by its tool results) must carry its `reasoning_details` for
anthropic/* models, with a signature over exactly that text; any block that is passed back, for
any family, must verify. A failure is ZenMux's own answer, the same on every face that carries
signed reasoning: 400 `invalid_params` with the path of the offending message and block, as
``messages.1.content.0: Invalid `signature` in `thinking` block``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.foundation.errors import INVALID_PARAMS, RequestRejected
from zenmux_emulator.foundation.signatures import Signer

BAD_SIGNATURE = "Invalid `signature` in `thinking` block"
MISSING_SIGNATURE = "thinking.signature: Field required"
MISSING_THINKING = (
    "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, "
    "a final `assistant` message must start with a thinking block."
)
UNVERIFIED = "could not be verified."
THOUGHT_SIGNATURE_MARKS = (
    "Corrupted thought signature.",
    "missing a thought_signature",
    "missing a `thought_signature`",
)
"""The fixed parts of Google's thought-signature refusals, which the Vertex AI / Gemini face answers with."""
REJECTIONS = (BAD_SIGNATURE, MISSING_SIGNATURE, MISSING_THINKING, UNVERIFIED, *THOUGHT_SIGNATURE_MARKS)
"""The messages (or their fixed part) a passed-back reasoning check fails with, on every face."""


def _open_tool_turn(messages: Sequence[Mapping[str, Any]]) -> int | None:
    """The index of the assistant message whose tool calls the request is answering, if any."""
    i = len(messages) - 1
    while i >= 0 and messages[i].get("role") == "tool":
        i -= 1
    if i < len(messages) - 1 and i >= 0 and messages[i].get("role") == "assistant" and messages[i].get("tool_calls"):
        return i
    return None


def _encrypted_problem(where: str, details: Any, signer: Signer) -> str | None:
    """What is wrong with OpenAI-shaped (encrypted) reasoning blocks, or None."""
    for n, block in enumerate(details):
        if (
            isinstance(block, dict)
            and block.get("type") == "reasoning.encrypted"
            and not signer.check_encrypted(str(block.get("id", "")), str(block.get("data", "")))
        ):
            return f"{where}.{n}: The encrypted content for item {block.get('id')} {UNVERIFIED}"
    return None


def _signed_texts(details: Any) -> tuple[list[Any], dict[Any, str], dict[Any, str]]:
    """The text blocks' indexes in the order they first come, each index's joined text, and its signature."""
    texts: dict[Any, list[str]] = {}
    signatures: dict[Any, str] = {}
    for block in details:
        if not isinstance(block, dict) or block.get("type") != "reasoning.text":
            continue
        parts = texts.setdefault(block.get("index", 0), [])
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        if isinstance(block.get("signature"), str):
            signatures[block.get("index", 0)] = block["signature"]
    return list(texts), {index: "".join(parts) for index, parts in texts.items()}, signatures


def _problem(shape: str, i: int, details: Any, signer: Signer) -> str | None:
    """What is wrong with the reasoning blocks of message i, or None."""
    where = f"messages.{i}.content"
    if shape == "openai":
        return _encrypted_problem(where, details, signer)
    order, texts, signatures = _signed_texts(details)
    if not order:
        return f"{where}.0.type: {MISSING_THINKING}"
    for position, index in enumerate(order):
        signature = signatures.get(index)
        if signature is None:
            return f"{where}.{position}.{MISSING_SIGNATURE}"
        if not isinstance(index, int) or not signer.verify(shape, index, texts[index], signature):
            return f"{where}.{position}: {BAD_SIGNATURE}"
        if index != position:
            return f"{where}.{position}: {BAD_SIGNATURE}"
    return None


def reasoning_findings(
    messages: Sequence[Mapping[str, Any]], shape: str, signer: Signer, *, require_all: bool = False
) -> list[str]:
    """What is wrong with the reasoning passed back: blocks that do not verify, and missing blocks
    where the upstream needs them (or, with `require_all`, on every assistant tool-call message)."""
    findings = []
    open_turn = _open_tool_turn(messages)
    for i, message in enumerate(messages):
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        details = message.get("reasoning_details")
        if not details and not require_all and (i != open_turn or shape != "anthropic"):
            continue
        problem = _problem(shape if details or shape != "openai" else "anthropic", i, details or [], signer)
        if problem is not None:
            findings.append(problem)
    return findings


def check_reasoning(request: NeutralRequest, shape: str, signer: Signer, mode: str) -> list[str]:
    """Verify passed-back reasoning; in strict mode refuse the first finding with ZenMux's 400
    `invalid_params`, else return the findings as warnings."""
    if mode == "off":
        return []
    findings = request.passback_findings(shape, signer)
    if findings and mode == "strict":
        raise RequestRejected(400, INVALID_PARAMS, findings[0])
    return [f"reasoning check: {f}" for f in findings]
