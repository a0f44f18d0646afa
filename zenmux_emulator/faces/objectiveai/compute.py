"""Everything the emulator computes for a Query request (§4.3–4.7, §6): choices, votes, confidence,
usage, choice errors and the all-failed code. Framing is `render`'s job."""

from __future__ import annotations

import http
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from zenmux_emulator.faces.common.chat_messages import prompt_tokens
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import seed_int_then
from zenmux_emulator.scenario.query import (
    DEFAULT_SCRIPT,
    DEFAULT_SELECT_REASONING,
    OutputScript,
    QueryScript,
    Target,
)
from zenmux_emulator.scenario.query_model import QueryLlm, TrainingLlmWeight, TrainingModelWeight

from . import defaults, ids
from .errors import error_message
from .models import JsonObjectFormat
from .usage import choice_usage, total_usage
from .votes import Ballot, Candidate, ballot, resolve
from .wire import QueryRequest

Kind = Literal["deterministic", "generate", "select"]
THINKING = frozenset({"select_thinking", "select_thinking_logprobs"})


@dataclass(frozen=True, slots=True)
class Context:
    """Per-request inputs besides the request and the script."""

    response_id: str  # `ids.response_id(seed, session, number, created)`
    created: int  # the emulator clock, frozen by --clock
    seed: int  # the server's --seed
    chunk_tokens: int = 1  # token pieces per stream chunk
    text: Callable[[str], str] | None = None  # renders a scripted template (identity when None)
    price: Callable[[str, int, int], float | None] | None = None  # cost of (slug, prompt, completion)


@dataclass(slots=True)
class Choice:
    """One choice, everything decided; `content`/`reasoning` are what is sent (cut short on a
    mid-stream error)."""

    index: int
    kind: Kind
    model: str  # the LLM id, or the json_schema name
    model_index: int | None
    slug: str  # completion_metadata.model
    metadata_id: str
    content: str | None
    reasoning: str | None = None
    refusal: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    generate_id: str | None = None
    confidence_id: str | dict[str, float] | None = None
    confidence_weight: float | None = None
    confidence: float | None = None
    error: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    cost: float = 0.0  # USD, whether or not the usage shows it
    provider: str | None = None
    embedding: dict[str, Any] | None = None
    ballot: Ballot | None = None


@dataclass(slots=True)
class Outcome:
    """The computed response: choices in index order, the unary order, usage, the all-failed code."""

    id: str
    created: int
    model: str
    choices: list[Choice]
    order: list[int]
    usage: dict[str, Any]
    failed_code: int | None
    chunk_tokens: int
    training_table_data: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    cost: float = 0.0
    """The LLMs' total cost in USD, also when the usage does not show it: what the key is charged."""

    @property
    def charged(self) -> dict[str, Any]:
        """The usage the key's balance is charged: the total tokens and their cost."""
        return {**{k: self.usage[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens")}, "cost": self.cost}


@dataclass(slots=True)
class _Llm:
    spec: QueryLlm
    name: str
    model_index: int


def _phrase(code: int) -> str:
    try:
        return http.HTTPStatus(code).phrase
    except ValueError:
        return "Error"


def _weight(llm: _Llm, scripted: float | None) -> float:
    w = llm.spec.weight
    if isinstance(w, TrainingLlmWeight):
        value = w.base_weight if scripted is None else scripted
        return float(min(max(value, w.min_weight), w.max_weight))
    return float(w.weight)


def all_failed_code(codes: list[int]) -> int:
    """The shared code if all are equal, else 400 if all are 4xx, else 500."""
    if len(set(codes)) == 1:
        return codes[0]
    return 400 if all(400 <= c < 500 for c in codes) else 500


class _Builder:
    def __init__(self, request: QueryRequest, script: QueryScript, ctx: Context) -> None:
        self.request, self.script, self.ctx = request, script, ctx
        self.body = request.body
        self.schema = request.schema
        self.include_cost = bool(self.body.usage and self.body.usage.include)
        self.prompt = prompt_tokens(request.raw["messages"], request.raw.get("tools"))
        self.conversation = ids.jdump(request.raw.get("messages"))
        self.encoded = self.conversation.encode()
        """The conversation as every seed hashes it, encoded once (a vote's seed took 0.1 s of a 30 MB one)."""
        self.warnings: list[str] = list(request.warnings)
        llms = [
            _Llm(spec, name, index)
            for spec, name, index in zip(request.model.models, request.llm_ids, request.model_indices, strict=True)
        ]
        self.llms = sorted(llms, key=lambda llm: llm.model_index)
        self.choices: list[Choice] = []
        self.default: str | None = None
        self.candidate_tokens = 0
        self.generators: list[tuple[int, str]] = []
        self.favourite: Candidate | None = None
        self.hashed: dict[str | None, tuple[str, str]] = {}

    def _text(self, value: str | None) -> str | None:
        return value if value is None or self.ctx.text is None else self.ctx.text(value)

    def _metadata(self, index: int) -> str:
        return ids.metadata_id(self.ctx.response_id, index, self.ctx.created)

    def _usage(self, choice: Choice, prompt: int, completion: int, reasoning: int, out: OutputScript) -> None:
        """The choice's usage and cost: the cost at the upstream slug's catalogue pricing, 0 when unknown."""

        def price(prompt: int, completion: int) -> float:
            priced = self.ctx.price(choice.slug, prompt, completion) if self.ctx.price else None
            return priced if priced is not None else 0.0

        choice.usage, choice.cost = choice_usage(prompt, completion, reasoning, out.usage, price, self.include_cost)

    def _error(self, choice: Choice, out: OutputScript) -> None:
        assert out.error is not None
        message = out.error.message if out.error.message is not None else _phrase(out.error.code)
        choice.error = {"code": out.error.code, "message": message}
        choice.finish_reason = "error"
        left = out.error.after_chars
        if choice.reasoning is not None:
            thought = choice.reasoning
            choice.reasoning, left = thought[:left] or None, max(0, left - len(thought))
        choice.content = (choice.content or "")[:left] or None
        choice.refusal, choice.tool_calls = None, []

    def deterministic(self) -> None:
        rf = self.request.json_schema
        for value in self.request.deterministic_values:
            assert rf is not None
            content = ids.jdump(value)
            self.choices.append(
                Choice(
                    index=len(self.choices),
                    kind="deterministic",
                    model=rf.json_schema.name,
                    model_index=None,
                    slug=rf.json_schema.name,
                    metadata_id=self.ctx.response_id,
                    content=content,
                    generate_id=ids.generate_id(content),
                    confidence_id=ids.value_confidence_id(value, self.schema),
                )
            )

    def _default_content(self) -> str:
        if self.default is None:
            self.default = defaults.generate_content(
                self.ctx.seed, self.encoded, self.schema, isinstance(self.body.response_format, JsonObjectFormat)
            )
        return self.default

    def generate(self, llm: _Llm, slot: int) -> None:
        entry = self.script.for_llm(llm.spec.id, llm.spec.mode, llm.name, llm.model_index)
        out = entry.at(slot) if entry else OutputScript()
        index = len(self.choices)
        calls = [
            {
                "id": "call_" + ids.hash_id(f"{self.ctx.response_id}/{index}/{i}"),
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.arguments if isinstance(c.arguments, str) else ids.jdump(c.arguments),
                },
            }
            for i, c in enumerate(out.tool_calls or [])
        ]
        if out.has_json:
            content: str | None = ids.jdump(out.json_value)
        elif out.content is not None:
            content = self._text(out.content)
        elif calls or out.refusal is not None:
            content = None
        else:
            content = self._default_content()
        choice = Choice(
            index=index,
            kind="generate",
            model=llm.name,
            model_index=llm.model_index,
            slug=llm.spec.id,
            metadata_id=self._metadata(index),
            content=content,
            reasoning=self._text(out.reasoning),
            refusal=self._text(out.refusal),
            tool_calls=calls,
            finish_reason=out.finish_reason or ("tool_calls" if calls else "stop"),
            confidence_weight=_weight(llm, entry.weight if entry else None),
            provider=out.provider,
        )
        self.choices.append(choice)
        if out.error is not None:
            return self._error(choice, out)
        choice.generate_id, choice.confidence_id = self._ids(content)
        reasoning = tokens.count(choice.reasoning or "")
        completion = (
            tokens.count(content or "")
            + reasoning
            + tokens.count(choice.refusal or "")
            + sum(tokens.count(ids.jdump(call)) for call in calls)
        )
        self._usage(choice, self.prompt, completion, reasoning, out)
        if self.body.embeddings:
            choice.embedding = defaults.embedding(self.body.embeddings, content or "")

    def _ids(self, content: str | None) -> tuple[str, str]:
        """The generate and confidence ids of a content, hashed once per distinct content (an
        unscripted ensemble's LLMs all say the same)."""
        made = self.hashed.get(content)
        if made is None:
            made = self.hashed[content] = (ids.generate_id(content), ids.confidence_id(content, self.schema))
        return made

    def candidates(self) -> list[Candidate]:
        """What the select LLMs vote among, worked out once with what every vote shares (the
        candidates' prompt tokens, the default vote, the generate LLMs), so voting is linear."""
        slots: dict[int | None, int] = {}
        found = [
            Candidate(c.index, c.content or "", c.generate_id or "", str(c.confidence_id), None, 0)
            for c in self.choices
            if c.kind == "deterministic"
        ]
        for c in self.choices:
            if c.kind == "generate" and c.error is None:
                slot = slots[c.model_index] = slots.get(c.model_index, -1) + 1
                found.append(
                    Candidate(c.index, c.content or "", c.generate_id or "", str(c.confidence_id), c.model_index, slot)
                )
        self.candidate_tokens = sum(tokens.count(c.content) + 4 for c in found)
        self.generators = [(x.model_index, x.spec.id) for x in self.llms if not x.spec.is_select]
        self.favourite = self._favourite(found)
        return found

    def _favourite(self, candidates: list[Candidate]) -> Candidate | None:
        """The default vote when generate choices exist: the heaviest confidence id, first by index."""
        if not candidates or not any(c.kind == "generate" for c in self.choices):
            return None
        weights: dict[str, float] = {}
        for c in self.choices:
            if c.kind == "generate" and c.error is None:
                key = str(c.confidence_id)
                weights[key] = weights.get(key, 0.0) + (c.confidence_weight or 0.0)
        return min(candidates, key=lambda c: (-weights.get(c.confidence_id, 0.0), c.index))

    def _default_vote(self, llm: _Llm, slot: int, candidates: list[Candidate]) -> Candidate:
        if self.favourite is None:
            return candidates[seed_int_then(self.encoded, self.ctx.seed, llm.name, slot) % len(candidates)]
        return self.favourite

    def select(self, llm: _Llm, slot: int, candidates: list[Candidate]) -> None:
        entry = self.script.for_llm(llm.spec.id, llm.spec.mode, llm.name, llm.model_index)
        out = entry.at(slot) if entry else OutputScript()
        index = len(self.choices)
        thinking = llm.spec.mode in THINKING
        if out.reasoning is not None and not thinking:
            self.warnings.append(f"{llm.spec.id} ({llm.spec.mode}): scripted reasoning is not sent by this mode")
        choice = Choice(
            index=index,
            kind="select",
            model=llm.name,
            model_index=llm.model_index,
            slug=llm.spec.id,
            metadata_id=self._metadata(index),
            content=self._text(out.content),
            reasoning=(self._text(out.reasoning) or DEFAULT_SELECT_REASONING) if thinking else None,
            confidence_weight=_weight(llm, entry.weight if entry else None),
            provider=out.provider,
        )
        self.choices.append(choice)
        if out.error is not None:
            return self._error(choice, out)
        if not candidates:
            choice.error = {"code": 500, "message": error_message("invalid_content", "no responses to select from")}
            choice.finish_reason, choice.content, choice.reasoning = "error", None, None
            return
        scripted = out.entries()
        entries: list[tuple[Target | None, float]] = list(scripted) if scripted else [(None, 1.0)]
        pairs: list[tuple[Candidate, float]] = []
        for target, p in entries:
            found = (
                self._default_vote(llm, slot, candidates)
                if target is None
                else resolve(target, candidates, self.schema, self.generators)
            )
            if found is None:
                self.warnings.append(f"{llm.spec.id}: the vote target {target!r} names no response")
                choice.error = {
                    "code": 500,
                    "message": error_message("invalid_content", "expected a valid response key"),
                }
                choice.finish_reason, choice.content, choice.reasoning = "error", None, None
                return
            pairs.append((found, p))
        logprobs = llm.spec.mode in ids.LOGPROBS_MODES
        if not logprobs and len(pairs) > 1:
            self.warnings.append(f"{llm.spec.id} ({llm.spec.mode}): only the top of {len(pairs)} vote entries counts")
        choice.ballot = ballot(pairs, logprobs, llm.spec.select_top_logprobs if logprobs else 1)
        choice.confidence_id = choice.ballot.confidence_id
        if choice.content is None:
            choice.content = choice.ballot.top.generate_id
        reasoning = tokens.count(choice.reasoning or "")
        prompt = self.prompt + self.candidate_tokens
        self._usage(choice, prompt, tokens.count(choice.content) + reasoning, reasoning, out)

    def confidence(self) -> None:
        weights: dict[str, float] = {}
        for c in self.choices:
            if c.error is not None or c.kind == "deterministic":
                continue
            w = c.confidence_weight or 0.0
            shares = c.ballot.entries if c.ballot is not None else [(str(c.confidence_id), 1.0)]
            for cid, p in shares:
                weights[cid] = weights.get(cid, 0.0) + w * p
        total = sum(weights.values())

        def conf(cid: str) -> float:
            return weights.get(cid, 0.0) / total if total else 0.0

        for c in self.choices:
            if c.error is not None:
                continue
            if c.ballot is not None:
                c.confidence = sum(p * conf(cid) for cid, p in c.ballot.entries)
            else:
                c.confidence = conf(str(c.confidence_id))

    def order(self) -> list[int]:
        if self.script.choice_order == "index":
            return [c.index for c in self.choices]
        return [
            c.index
            for c in sorted(
                self.choices, key=lambda c: (c.confidence is None, -(c.confidence or 0.0), c.kind == "select", c.index)
            )
        ]


def compute(request: QueryRequest, script: QueryScript | None, ctx: Context) -> Outcome:
    """The whole response of a Query request, from the scripted `reply.query` (or the defaults)."""
    b = _Builder(request, script or DEFAULT_SCRIPT, ctx)
    b.deterministic()
    for llm in b.llms:
        if not llm.spec.is_select:
            for slot in range(request.body.n):
                b.generate(llm, slot)
    candidates = b.candidates()
    for llm in b.llms:
        if llm.spec.is_select:
            for slot in range(request.body.n):
                b.select(llm, slot, candidates)
    b.confidence()
    llm_choices = [c for c in b.choices if c.kind != "deterministic"]
    failed = None
    if all(c.error is not None for c in llm_choices):
        failed = all_failed_code([int(c.error["code"]) for c in llm_choices if c.error is not None])
    usages = [c.usage for c in b.choices if c.usage is not None]
    usages += [c.embedding["usage"] for c in b.choices if c.embedding is not None]
    table = None
    if isinstance(request.model.weight, TrainingModelWeight):
        embedded = defaults.embedding(request.model.weight.embeddings_model, b.conversation)
        table = {
            "response_format_hash": ids.hash_id(ids.jdump(request.raw.get("response_format"))),
            "embeddings_response": embedded,
        }
        usages.append(embedded["usage"])
    return Outcome(
        id=ctx.response_id,
        created=ctx.created,
        model=f"objectiveai/{request.model_id}",
        choices=b.choices,
        order=b.order(),
        usage=total_usage(usages, b.include_cost),
        failed_code=failed,
        chunk_tokens=max(1, ctx.chunk_tokens),
        training_table_data=table,
        warnings=b.warnings,
        cost=sum(c.cost for c in b.choices if c.usage is not None),
    )
