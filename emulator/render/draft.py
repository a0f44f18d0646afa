"""The reply decided once, before JSON or SSE is chosen: text, finish reason, usage, timing.

Streamed and non-streamed answers of one rule are built from the same draft, so they carry
the same content and usage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from faker import Faker

from emulator import tokens
from emulator.match.facts import RequestFacts
from emulator.render.ids import seed_int
from emulator.render.text import SeededFake, render
from emulator.render.usage import usage_object
from emulator.scenario.compiled import CompiledReply
from emulator.scenario.schema import StreamTiming


@dataclass(slots=True)
class Draft:
    """Everything about a reply except its framing."""

    model: str
    content: str | None
    refusal: str | None
    finish_reason: str
    usage: dict[str, Any]
    service_tier: str | None = None
    system_fingerprint: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timing: StreamTiming | None = None


@dataclass(frozen=True, slots=True)
class DraftLimits:
    """What the request asks of the generation: a token budget and stop sequences."""

    max_completion_tokens: int | None
    stop: tuple[str, ...]


def request_seed(seed: int, facts: RequestFacts, salt: str) -> int:
    """A seed that depends only on the conversation (model and messages), not on framing."""
    canonical = orjson.dumps({"model": facts.model, "messages": facts.messages}, option=orjson.OPT_SORT_KEYS)
    return seed_int(seed, salt, canonical)


def default_text(faker: Faker, seed: int, facts: RequestFacts) -> str:
    """The answer when no rule matched: faker prose seeded by the request."""
    faker.seed_instance(request_seed(seed, facts, "default"))
    return faker.paragraph(nb_sentences=3)


def _text(value: object, rule: str, context: dict[str, Any] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    assert context is not None
    return render(value, rule, context)


def apply_limits(text: str, limits: DraftLimits) -> tuple[str, str | None]:
    """Cut at the first stop sequence (excluded), then at the token budget; the reason, if cut."""
    reason = None
    if limits.stop:
        cut = min((i for i in (text.find(s) for s in limits.stop if s) if i >= 0), default=-1)
        if cut >= 0:
            text, reason = text[:cut], "stop"
    if limits.max_completion_tokens is not None:
        text, truncated = tokens.truncate(text, limits.max_completion_tokens)
        if truncated:
            reason = "length"
    return text, reason


def draft_reply(
    reply: CompiledReply | None,
    rule: str | None,
    facts: RequestFacts,
    model: str,
    limits: DraftLimits,
    prompt_tokens: int,
    faker: Faker,
    seed: int,
) -> Draft:
    """Render a scripted reply (or the default one when `reply` is None); `model` is the one that served."""
    if reply is None:
        content: str | None = default_text(faker, seed, facts)
        refusal = None
        spec = None
    else:
        spec = reply.spec
        needs_context = not isinstance(reply.content, (str, type(None))) or not isinstance(reply.refusal, (str, type(None)))
        context = None
        if needs_context:
            faker.seed_instance(request_seed(seed, facts, f"rule:{rule}"))
            context = {"request": facts.template_context(), "fake": SeededFake(faker)}
        content = _text(reply.content, rule or "", context)
        refusal = _text(reply.refusal, rule or "", context)
        if content is None and refusal is None:
            content = ""
    cut_reason = None
    if content is not None:
        content, cut_reason = apply_limits(content, limits)
    finish = cut_reason or (spec.finish_reason if spec and spec.finish_reason else "stop")
    completion = tokens.count(content or "") + tokens.count(refusal or "")
    return Draft(
        model=(spec.model if spec and spec.model else model),
        content=content,
        refusal=refusal,
        finish_reason=finish,
        usage=usage_object(prompt_tokens, completion, override=spec.usage if spec else None),
        service_tier=spec.service_tier if spec else None,
        system_fingerprint=spec.system_fingerprint if spec else None,
        headers=dict(spec.headers or {}) if spec else {},
        timing=spec.stream if spec else None,
    )
