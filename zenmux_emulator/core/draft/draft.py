"""The reply decided once, before JSON or SSE is chosen: reasoning, text, tool calls, finish
reason, usage, timing.

Streamed and non-streamed answers of one rule are built from the same draft, so they carry
the same content and usage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import orjson

from zenmux_emulator.core.draft import citations, reasoning
from zenmux_emulator.core.draft.budget import call_tokens, cut_calls, cut_text
from zenmux_emulator.core.draft.compiled import CompiledReply, FixedTexts
from zenmux_emulator.core.draft.schema_values import schema_value
from zenmux_emulator.core.draft.structured import misfit
from zenmux_emulator.core.draft.text import SeededFake, render
from zenmux_emulator.core.draft.tool_calls import tool_calls
from zenmux_emulator.core.draft.usage import usage_object
from zenmux_emulator.core.neutral.request import SILENT_REASONING, NeutralRequest, ReasoningAsk
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import seed_int_then
from zenmux_emulator.foundation.misbehaviours import Applied
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.scenario.schema import Reply, StreamTiming

if TYPE_CHECKING:
    from faker import Faker

NO_HEADERS: Mapping[str, str] = MappingProxyType({})
"""A draft's headers when its rule adds none (one read-only mapping, shared)."""

DEFAULT_EFFORT = "medium"
"""The effort a reasoning model reasons at when the request does not say (OpenAI's and ZenMux's default)."""


@dataclass(slots=True)
class Draft:
    """Everything about a reply except its framing. Not frozen: a fault (`core.draft.misbehave`) edits
    the draft it makes wrong. What the scripted reply alone says (its stream's timing, service
    tier, fingerprint and headers) is read from it, not copied."""

    model: str
    content: str | None
    refusal: str | None
    finish_reason: str
    usage: dict[str, Any]
    reasoning: str | None = None
    reasoning_details: list[dict[str, Any]] | None = None
    tool_calls: Sequence[dict[str, Any]] = ()
    warnings: Sequence[str] = ()
    stop_sequence: str | None = None
    """The stop sequence the content was cut at (finish_reason `stop`); faces that name it read this."""
    annotations: Sequence[dict[str, Any]] = ()
    """`url_citation` annotations of the content, in chat's shape (see `core.draft.citations`)."""
    misbehaved: Applied | None = None
    """The fault the reply was made wrong with (`core.draft.misbehave`), None for most replies."""
    cut_call: bool = False
    """The last tool call's arguments stop mid-way (`stop-length-mid-tool`): a face that sends
    a call's state says it is incomplete."""
    spec: Reply | None = None
    """The scripted reply drafted (None for the default reply), for what a face reads beyond the
    neutral fields."""

    @property
    def timing(self) -> StreamTiming | None:
        """The scripted stream's pacing (None: the face's defaults)."""
        return self.spec.stream if self.spec is not None else None

    @property
    def service_tier(self) -> str | None:
        """The tier the rule says served the reply (None: the face's default)."""
        return self.spec.service_tier if self.spec is not None else None

    @property
    def system_fingerprint(self) -> str | None:
        """The rule's `system_fingerprint` (None: none is sent)."""
        return self.spec.system_fingerprint if self.spec is not None else None

    @property
    def headers(self) -> Mapping[str, str]:
        """The headers the rule adds to its reply."""
        return self.spec.headers if self.spec is not None and self.spec.headers else NO_HEADERS


class Kit:
    """The seeded generators a draft is made with. The faker is made on first use: importing
    faker takes a fifth of the start-up, and replies that are scripted text never need it."""

    __slots__ = ("_faker", "seed", "signer")

    def __init__(self, seed: int, signer: Signer, faker: Faker | None = None) -> None:
        self.seed = seed
        self.signer = signer
        self._faker = faker

    @property
    def faker(self) -> Faker:
        if self._faker is None:
            from faker import Faker

            self._faker = Faker("en_US")
        return self._faker


def request_seed(seed: int, facts: NeutralRequest, salt: str) -> int:
    """A seed that depends only on the conversation (model and messages), not on framing."""
    return seed_int_then(facts.seed_text, seed, salt)


def default_text(kit: Kit, facts: NeutralRequest) -> str:
    """The answer when no rule matched: faker prose seeded by the request, or a JSON value made
    from the request's output schema when it asks for structured output."""
    kit.faker.seed_instance(request_seed(kit.seed, facts, "default"))
    schema = facts.output_schema
    if schema is not None:
        return orjson.dumps(schema_value(kit.faker, schema, "the requested output schema")).decode()
    return kit.faker.paragraph(nb_sentences=3)


def default_reasoning(kit: Kit, facts: NeutralRequest) -> str:
    """Reasoning when it is asked for and not scripted: a plausible, seeded paragraph."""
    kit.faker.seed_instance(request_seed(kit.seed, facts, "reasoning"))
    topic = " ".join(facts.last_user.split()[:12]) or "the conversation"
    return f"The user asks about: {topic}. " + kit.faker.paragraph(nb_sentences=4)


def first_stop(text: str, stop: tuple[str, ...]) -> tuple[int, str] | None:
    """Where the earliest stop sequence starts in the text, and which one it is."""
    found = [(i, s) for i, s in ((text.find(s), s) for s in stop if s) if i >= 0]
    return min(found, key=lambda hit: hit[0]) if found else None


def apply_limits(text: str, stop: tuple[str, ...], budget: int | None) -> tuple[str, str | None]:
    """Cut at the first stop sequence (excluded), then at the token budget; the reason, if cut."""
    reason = None
    hit = first_stop(text, stop) if stop else None
    if hit is not None:
        text, reason = text[: hit[0]], "stop"
    if budget is not None:
        text, truncated = tokens.truncate(text, budget)
        if truncated:
            reason = "length"
    return text, reason


def _text(value: object, rule: str, context: dict[str, Any] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    assert context is not None
    return render(value, rule, context)


def model_reasoning(
    asked: ReasoningAsk, reasons: bool | None, default_reply: bool, model: str, warnings: list[str]
) -> ReasoningAsk:
    """The reasoning ask as the model takes it: a model the catalogue lists as non-reasoning
    ignores an ask (with a warning, as the gateway does); a reasoning model's default reply reasons
    at its default effort when the request is silent. Unknown models follow the request."""
    if reasons is False and asked.enabled:
        warnings.append(f"{model} is not a reasoning model: the request's reasoning options were ignored")
        return SILENT_REASONING
    if reasons and default_reply and asked.enabled is None:
        return ReasoningAsk(enabled=True, effort=DEFAULT_EFFORT, exclude=asked.exclude)
    return asked


def scripted_texts(
    reply: CompiledReply | None, rule: str | None, facts: NeutralRequest, kit: Kit
) -> tuple[str | None, str | None, str | None]:
    """The reply's content, refusal and reasoning, its templates rendered; the default reply
    (`reply` None) is faker prose with neither refusal nor scripted reasoning."""
    if reply is None:
        return default_text(kit, facts), None, None
    if not reply.templated:
        return reply.content, reply.refusal, reply.reasoning
    kit.faker.seed_instance(request_seed(kit.seed, facts, f"rule:{rule}"))
    context = {"request": facts.template_context(), "fake": SeededFake(kit.faker)}
    return (
        _text(reply.content, rule or "", context),
        _text(reply.refusal, rule or "", context),
        _text(reply.reasoning, rule or "", context),
    )


def draft_reasoning(
    asked: ReasoningAsk, scripted: str | None, verbatim: bool, facts: NeutralRequest, kit: Kit
) -> tuple[str | None, int]:
    """The reasoning text and the tokens it counts. It comes first and counts toward
    max_completion_tokens; a recorded (verbatim) reply keeps the reasoning the upstream sent,
    uncut, as its signature covers exactly it."""
    if verbatim:
        return scripted, tokens.count(scripted) if scripted else 0
    if not (asked.enabled is True or (scripted is not None and asked.enabled is not False)):
        return None, 0
    limit = facts.max_tokens
    thinking = scripted if scripted is not None else default_reasoning(kit, facts)
    reasoning_tokens = tokens.count(thinking)
    if asked.enabled:  # asked for: the effort's (or the explicit) budget is spent
        budget_tokens = reasoning.token_budget(asked, limit)
        reasoning_tokens = budget_tokens if limit is not None else max(reasoning_tokens, budget_tokens)
    elif limit is not None:
        reasoning_tokens = min(reasoning_tokens, limit)
    thinking, _ = tokens.truncate(thinking, reasoning_tokens)  # within the limit, before it is signed
    return thinking, reasoning_tokens


def draft_calls(
    spec: Reply | None,
    refusal: str | None,
    rule: str | None,
    facts: NeutralRequest,
    model: str,
    kit: Kit,
    warnings: list[str],
) -> list[dict[str, Any]]:
    """The tool calls: the rule's, or ones made up when the request forces a call; none when the
    reply refuses (with a warning if the rule scripted some)."""
    scripted_calls = spec.tool_calls if spec is not None else None
    if refusal:
        if scripted_calls:
            warnings.append(f"rule {rule!r} refuses: its {len(scripted_calls)} tool call(s) were not sent")
        return []
    if not scripted_calls and facts.stated_tool_choice in (None, "auto", "none"):
        return []
    # only now: seeding hashes the whole conversation, which most replies do not need
    kit.faker.seed_instance(request_seed(kit.seed, facts, f"tools:{rule}"))
    return tool_calls(
        scripted_calls,
        facts.tool_options,
        model,
        kit.faker,
        (kit.seed, request_seed(kit.seed, facts, "call-ids"), rule),
        rule,
        warnings,
    )


@dataclass(slots=True)
class Cut:
    """The reply's parts after the request's stop sequences and token budget, and why it was cut.
    Slotted and not frozen, as the endpoint's step values are (core/endpoint.py says why)."""

    content: str | None
    refusal: str | None
    calls: list[dict[str, Any]]
    reason: str | None = None
    stop_sequence: str | None = None


def cut_to_limits(
    content: str | None, refusal: str | None, calls: list[dict[str, Any]], stop: tuple[str, ...], budget: int | None
) -> Cut:
    """Cut the content at the first stop sequence, then everything to the tokens left after the
    reasoning (`budget`)."""
    reason = stop_sequence = None
    if content is not None and stop:
        hit = first_stop(content, stop)
        if hit is not None:
            content, reason, stop_sequence = content[: hit[0]], "stop", hit[1]
    if budget is not None:
        content, budget, cut = cut_text(content, budget)
        refusal, budget, refusal_cut = cut_text(refusal, budget)
        calls, calls_cut = cut_calls(calls, budget)
        if cut or refusal_cut or calls_cut:
            reason, stop_sequence = "length", None
    return Cut(content=content, refusal=refusal, calls=calls, reason=reason, stop_sequence=stop_sequence)


def finish_reason(cut: Cut, spec: Reply | None) -> str:
    """Why the reply ends: its cut, else the rule's finish reason, else its tool calls or a plain stop."""
    if cut.reason is not None:
        return cut.reason
    if spec is not None and spec.finish_reason:
        return spec.finish_reason
    return "tool_calls" if cut.calls else "stop"


def draft_annotations(content: str | None, spec: Reply | None, facts: NeutralRequest, kit: Kit) -> list[dict[str, Any]]:
    """The content's citations: the rule's, or made up for a default reply to a web-search request."""
    if not content:
        return []
    if spec is not None:
        return citations.scripted(spec.annotations, content) if spec.annotations else []
    if facts.web_search and facts.output_schema is None:
        kit.faker.seed_instance(request_seed(kit.seed, facts, "citations"))
        return citations.searched(content, kit.faker)
    return []


def shown_reasoning(
    thinking: str | None, asked: ReasoningAsk, spec: Reply | None, model: str, kit: Kit
) -> tuple[str | None, list[dict[str, Any]] | None]:
    """The reasoning and its details as sent: in the rule's shape, else the one of the model's
    vendor; neither when the request excludes it."""
    if thinking is None:
        return None, None
    shape = spec.reasoning_shape if spec is not None and spec.reasoning_shape else reasoning.shape_of(model)
    details = reasoning.details(shape, thinking, kit.signer, kit.seed, spec)
    if asked.exclude:
        return None, None
    return thinking, details


def completion_tokens(cut: Cut, reasoning_tokens: int) -> int:
    """The completion's tokens: content, refusal, reasoning and tool calls."""
    completion = tokens.count(cut.content) if cut.content else 0
    if cut.refusal:
        completion += tokens.count(cut.refusal)
    return completion + reasoning_tokens + sum(call_tokens(call) for call in cut.calls)


def draft_reply(
    reply: CompiledReply | None,
    rule: str | None,
    facts: NeutralRequest,
    model: str,
    kit: Kit,
    reasons: bool | None = None,
) -> Draft:
    """Render a scripted reply (or the default one when `reply` is None) for this request, as
    `model` (the one routing chose) answers it; `reasons` is the catalogue's reasoning flag for
    it (None when the catalogue does not list it). A reply whose texts depend on it alone, to a
    request that asks nothing of them, is drafted from the texts worked out at load."""
    if reply is not None and reply.fixed is not None and asks_nothing_of_texts(facts):
        return fixed_draft(reply.fixed, reply.spec, facts, model)
    return drafted(reply, rule, facts, model, kit, reasons)


def asks_nothing_of_texts(facts: NeutralRequest) -> bool:
    """The request leaves a scripted reply's texts as they are: no stop sequence, no token limit,
    no structured output, no forced tool call, and no reasoning asked for (which a model that does
    not reason would warn about)."""
    return (
        not facts.stop
        and facts.max_tokens is None
        and facts.reasoning.enabled is not True
        and facts.output_schema is None
        and facts.stated_tool_choice in (None, "auto", "none")
    )


def fixed_draft(fixed: FixedTexts, spec: Reply, facts: NeutralRequest, model: str) -> Draft:
    """The draft of a reply's fixed texts: what `drafted` makes of them for a request that asks
    nothing of them, with the request's own prompt in the usage."""
    return Draft(
        model=spec.model or model,
        content=fixed.content,
        refusal=fixed.refusal,
        finish_reason=fixed.finish_reason,
        usage=usage_object(facts.prompt_tokens, fixed.tokens, 0, 0, spec.usage),
        tool_calls=[],
        warnings=[],
        annotations=[],
        spec=spec,
    )


def drafted(
    reply: CompiledReply | None,
    rule: str | None,
    facts: NeutralRequest,
    model: str,
    kit: Kit,
    reasons: bool | None = None,
) -> Draft:
    """`draft_reply`, every step worked out for this request."""
    spec = reply.spec if reply is not None else None
    verbatim = spec is not None and spec.verbatim
    warnings: list[str] = []
    asked = model_reasoning(facts.reasoning, reasons, reply is None, model, warnings)
    content, refusal, scripted_reasoning = scripted_texts(reply, rule, facts, kit)
    thinking, reasoning_tokens = draft_reasoning(asked, scripted_reasoning, verbatim, facts, kit)
    calls = draft_calls(spec, refusal, rule, facts, model, kit, warnings)
    if calls and reply is None:
        content = None  # a forced call answers instead of prose, as the upstream's does
    if content is None and refusal is None and not calls:
        content = ""
    if spec is not None and content is not None and facts.output_schema is not None:
        wrong = misfit(content, facts.output_schema)
        if wrong is not None:
            warnings.append(f"the content of rule {rule!r} does not fit the requested response format: {wrong}")
    if verbatim:  # a recorded reply is what the upstream sent, already within the request's limits
        cut = Cut(content=content, refusal=refusal, calls=calls)
    else:
        limit = facts.max_tokens
        budget = None if limit is None else max(limit - reasoning_tokens, 0)
        cut = cut_to_limits(content, refusal, calls, facts.stop, budget)
    thinking, details = shown_reasoning(thinking, asked, spec, model, kit)
    usage = usage_object(
        facts.prompt_tokens,
        completion_tokens(cut, reasoning_tokens),
        reasoning_tokens,
        0,
        spec.usage if spec is not None else None,
    )
    return Draft(
        model=spec.model if spec is not None and spec.model else model,
        content=cut.content,
        refusal=cut.refusal,
        finish_reason=finish_reason(cut, spec),
        usage=usage,
        reasoning=thinking,
        reasoning_details=details,
        tool_calls=cut.calls,
        warnings=warnings,
        stop_sequence=cut.stop_sequence,
        annotations=draft_annotations(cut.content, spec, facts, kit),
        spec=spec,
    )
