"""An `Outcome` as bytes: the unary body (§4.5), the SSE events (§4.6) and error bodies (§4.8)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from zenmux_emulator.foundation import tokens

from .compute import Choice, Outcome
from .errors import ALL_FAILED, QueryRejected, error_message

DONE = b"data: [DONE]\n\n"


def error_body(kind: str, text: str) -> bytes:
    """`{"kind":"query","error":{"kind":K,"error":TEXT}}` as bytes (pre-stream HTTP errors)."""
    return orjson.dumps(error_message(kind, text))


def rejected_body(exc: QueryRejected) -> bytes:
    """The body of a `QueryRejected`."""
    return orjson.dumps(exc.body)


def _metadata(outcome: Outcome, c: Choice, usage: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"id": c.metadata_id, "created": outcome.created, "model": c.slug}
    if usage and c.usage is not None:
        meta["usage"] = c.usage
    if c.provider is not None:
        meta["provider"] = c.provider
    return meta


def _message(c: Choice) -> dict[str, Any]:
    message: dict[str, Any] = {"content": c.content, "refusal": c.refusal, "role": "assistant"}
    if c.reasoning is not None:
        message["reasoning"] = c.reasoning
    if c.tool_calls:
        message["tool_calls"] = c.tool_calls
    return message


def unary_choice(outcome: Outcome, c: Choice) -> dict[str, Any]:
    """One choice of the unary body, keys in the order of §4.5."""
    out: dict[str, Any] = {
        "message": _message(c),
        "finish_reason": c.finish_reason,
        "index": c.index,
        "logprobs": None,
        "generate_id": c.generate_id,
        "confidence_id": c.confidence_id,
        "confidence_weight": c.confidence_weight,
        "confidence": c.confidence,
    }
    if c.embedding is not None:
        out["embedding"] = c.embedding
    if c.error is not None:
        out["error"] = c.error
    out.update(model=c.model, model_index=c.model_index, completion_metadata=_metadata(outcome, c, True))
    return out


def unary_json(outcome: Outcome) -> dict[str, Any]:
    """The unary `chat.completion` (also the stored form of a completion), choices in outcome order."""
    body: dict[str, Any] = {
        "id": outcome.id,
        "choices": [unary_choice(outcome, outcome.choices[i]) for i in outcome.order],
        "created": outcome.created,
        "model": outcome.model,
        "object": "chat.completion",
        "usage": outcome.usage,
    }
    if outcome.training_table_data is not None:
        body["training_table_data"] = outcome.training_table_data
    return body


def unary(outcome: Outcome) -> tuple[int, bytes]:
    """(status, body): 200 and the completion, or the all-failed HTTP error."""
    if outcome.failed_code is not None:
        return outcome.failed_code, orjson.dumps(ALL_FAILED)
    return 200, orjson.dumps(unary_json(outcome))


def _event(value: Any) -> bytes:
    return b"data: " + orjson.dumps(value) + b"\n\n"


def _chunk(outcome: Outcome, choices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": outcome.id,
        "choices": choices,
        "created": outcome.created,
        "model": outcome.model,
        "object": "chat.completion.chunk",
    }


def _llm_choice(
    outcome: Outcome, c: Choice, delta: dict[str, Any], finish: str | None, extra: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"delta": delta, "finish_reason": finish, "index": c.index}
    out.update((k, extra[k]) for k in ("generate_id", "confidence_id") if k in extra)
    out["confidence_weight"] = c.confidence_weight
    out.update((k, extra[k]) for k in ("embedding", "error") if k in extra)
    out.update(model=c.model, model_index=c.model_index, completion_metadata=_metadata(outcome, c, False))
    return out


def _groups(text: str, size: int) -> list[str]:
    parts = tokens.pieces(text)
    return ["".join(parts[i : i + size]) for i in range(0, len(parts), size)]


def _plan(outcome: Outcome, c: Choice) -> Iterator[dict[str, Any]]:
    """The choice's events, made as they are sent: reasoning pieces, content pieces, refusal, tool
    calls, then its finish."""
    deltas: list[dict[str, Any]] = [{"reasoning": p} for p in _groups(c.reasoning or "", outcome.chunk_tokens)]
    deltas += [{"content": p} for p in _groups(c.content or "", outcome.chunk_tokens)]
    if c.refusal:
        deltas.append({"refusal": c.refusal})
    for i, call in enumerate(c.tool_calls):
        deltas.append({"tool_calls": [{"index": i, **call}]})
    if deltas:
        deltas[0] = {"role": "assistant", **deltas[0]}
    for delta in deltas:
        yield _llm_choice(outcome, c, delta, None, {})
    extra: dict[str, Any] = {}
    if c.generate_id is not None:
        extra["generate_id"] = c.generate_id
    if c.confidence_id is not None:
        extra["confidence_id"] = c.confidence_id
    if c.embedding is not None:
        extra["embedding"] = c.embedding
    if c.error is not None:
        extra["error"] = c.error
    yield _llm_choice(outcome, c, {}, c.finish_reason, extra)


def _round_robin(plans: list[Iterator[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """One event of each plan in turn, the plans that ended left out."""
    while plans:
        going = []
        for plan in plans:
            event = next(plan, None)
            if event is not None:
                going.append(plan)
                yield event
        plans = going


def _final_choice(outcome: Outcome, c: Choice) -> dict[str, Any]:
    out: dict[str, Any] = {"delta": {}, "finish_reason": None, "index": c.index}
    if c.kind != "deterministic":
        out["confidence_weight"] = c.confidence_weight
    if c.confidence is not None:
        out["confidence"] = c.confidence
    out.update(model=c.model, model_index=c.model_index, completion_metadata=_metadata(outcome, c, True))
    return out


def stream_events(outcome: Outcome) -> list[bytes]:
    """Every SSE event, `data: [DONE]` included, in order (§4.6)."""
    return list(iter_events(outcome))


def iter_events(outcome: Outcome) -> Iterator[bytes]:
    """The SSE events made one at a time as they are written: a large ensemble's stream (1,024
    choices, some 20,000 events) is never made whole on the event loop, nor held."""
    fixed = [c for c in outcome.choices if c.kind == "deterministic"]
    if fixed:
        yield _event(
            _chunk(
                outcome,
                [
                    {
                        "delta": {"role": "assistant", "content": c.content},
                        "finish_reason": "stop",
                        "index": c.index,
                        "generate_id": c.generate_id,
                        "confidence_id": c.confidence_id,
                        "model": c.model,
                        "model_index": None,
                        "completion_metadata": _metadata(outcome, c, False),
                    }
                    for c in fixed
                ],
            )
        )
    for kind in ("generate", "select"):
        plans = [_plan(outcome, c) for c in outcome.choices if c.kind == kind]
        yield from (_event(_chunk(outcome, [choice])) for choice in _round_robin(plans))
    final = _chunk(outcome, [_final_choice(outcome, c) for c in outcome.choices])
    final["usage"] = outcome.usage
    if outcome.training_table_data is not None:
        final["training_table_data"] = outcome.training_table_data
    yield _event(final)
    if outcome.failed_code is not None:
        yield _event({"code": outcome.failed_code, "message": ALL_FAILED})
    yield DONE
