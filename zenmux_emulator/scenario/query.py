"""`reply.query` of a scenario rule (ObjectiveAI Query Completions, spec §5): what a rule scripts
per upstream LLM of a Query Model. Validated at load with the rest of the file; the
`faces/objectiveai` face computes everything else (ids, votes, confidence, usage)."""

from __future__ import annotations

import fnmatch
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_SELECT_REASONING = "I compared the responses and chose the best one."


class Scripted(BaseModel):
    """Base of the scenario models: unknown keys refused at load, immutable, finite numbers."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, populate_by_name=True, defer_build=True
    )  # as schema.LANGUAGE, with names or aliases


class LlmMatch(Scripted):
    """Which LLMs an entry scripts; every given key must match."""

    id: str | None = None  # glob on the upstream slug
    mode: str | None = None  # glob on the mode
    name: str | None = None  # the 22-character LLM id
    index: int | None = None  # the LLM's model_index

    def matches(self, slug: str, mode: str, name: str, index: int) -> bool:
        return (
            (self.id is None or fnmatch.fnmatchcase(slug, self.id))
            and (self.mode is None or fnmatch.fnmatchcase(mode, self.mode))
            and (self.name is None or self.name == name)
            and (self.index is None or self.index == index)
        )


class JsonTarget(Scripted):
    json_value: Any = Field(alias="json")


class ContentTarget(Scripted):
    content: str


class IndexTarget(Scripted):
    index: int


Target = str | JsonTarget | ContentTarget | IndexTarget


class VoteEntry(Scripted):
    to: Target
    p: Annotated[float, Field(ge=0)]


class ToolCallScript(Scripted):
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class UsageScript(Scripted):
    prompt_tokens: Annotated[int, Field(ge=0)] | None = None
    completion_tokens: Annotated[int, Field(ge=0)] | None = None
    reasoning_tokens: Annotated[int, Field(ge=0)] | None = None
    cached_tokens: Annotated[int, Field(ge=0)] | None = None
    cost: Annotated[float, Field(ge=0)] | None = None


class ErrorScript(Scripted):
    code: Annotated[int, Field(ge=100, le=599)]
    message: Any = None  # any JSON; default the HTTP reason phrase
    after_chars: Annotated[int, Field(ge=0)] = 0


class OutputScript(Scripted):
    """What one LLM says at one n-slot."""

    content: str | None = None
    json_value: Any = Field(default=None, alias="json")
    reasoning: str | None = None
    refusal: str | None = None
    tool_calls: list[ToolCallScript] | None = None
    finish_reason: Literal["stop", "length", "content_filter", "tool_calls"] | None = None
    usage: UsageScript | None = None
    provider: str | None = None
    error: ErrorScript | None = None
    vote: Target | list[VoteEntry] | None = None

    @property
    def has_json(self) -> bool:
        return "json_value" in self.model_fields_set

    @model_validator(mode="after")
    def _check(self) -> OutputScript:
        if self.vote is not None and (self.has_json or self.tool_calls):
            raise ValueError("a vote cannot come with 'json' or 'tool_calls' (generate-only keys)")
        if self.has_json and self.content is not None:
            raise ValueError("give 'content' or 'json', not both")
        if isinstance(self.vote, list):
            if not self.vote:
                raise ValueError("vote: the list is empty")
            if not any(entry.p > 0 and math.isfinite(entry.p) for entry in self.vote):
                raise ValueError("vote: at least one entry needs p > 0")
        return self

    def entries(self) -> list[tuple[Target, float]] | None:
        """The vote as (target, p) pairs; a bare target is p = 1."""
        if self.vote is None:
            return None
        if isinstance(self.vote, list):
            return [(entry.to, entry.p) for entry in self.vote]
        return [(self.vote, 1.0)]


class LlmScript(Scripted):
    """One entry of `llms`: a matcher, then one output (or one per n-slot)."""

    match: LlmMatch = Field(default_factory=LlmMatch)
    weight: float | None = None  # training_table models only, clamped to min/max
    output: OutputScript | None = None
    outputs: Annotated[list[OutputScript], Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _one(self) -> LlmScript:
        if self.output is not None and self.outputs is not None:
            raise ValueError("give 'output' or 'outputs', not both")
        return self

    def at(self, slot: int) -> OutputScript:
        """The output of n-slot `slot`: outputs[min(slot, len - 1)], or the single one."""
        if self.outputs:
            return self.outputs[min(slot, len(self.outputs) - 1)]
        return self.output or OutputScript()


class QueryScript(Scripted):
    """`reply.query`: the order of the unary choices and the LLM scripts."""

    choice_order: Literal["confidence", "index"] = "confidence"
    llms: list[LlmScript] = Field(default_factory=list)

    def for_llm(self, slug: str, mode: str, name: str, index: int) -> LlmScript | None:
        """The first entry whose matcher fits the LLM, or None (the defaults apply)."""
        return next((entry for entry in self.llms if entry.match.matches(slug, mode, name, index)), None)


DEFAULT_SCRIPT = QueryScript()
