"""A stored ObjectiveAI Query Model (seed 004, spec §2.1): its LLMs and weights, as a Query request
carries it and as a scenario file's top-level `query_models:` declares it (§4.10).

The models live here, below the scenario language, so that scenario files are validated against
them at load (located errors, as for every other key); `faces/objectiveai` validates requests with
the same models and computes their ids.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from zenmux_emulator.foundation.strict import StrictModel, by_key, by_shape, tag

Unit = Annotated[float, Field(ge=0, le=1)]
Penalty = Annotated[float, Field(ge=-2, le=2)]
Positive = Annotated[int, Field(ge=1)]
Effort = Literal["low", "medium", "high"]


class ProviderPrefs(StrictModel):
    order: list[str] | None = None
    allow_fallbacks: bool | None = None
    require_parameters: bool | None = None
    data_collection: Literal["allow", "deny"] | None = None
    only: list[str] | None = None
    ignore: list[str] | None = None
    quantizations: list[str] | None = None
    sort: str | None = None


class ReasoningPrefs(StrictModel):
    max_tokens: Positive | None = None
    effort: Effort | None = None
    enabled: bool | None = None


class StaticLlmWeight(StrictModel):
    type: Literal["static"]
    weight: float


class TrainingLlmWeight(StrictModel):
    type: Literal["training_table"]
    base_weight: float
    min_weight: float
    max_weight: float


_WEIGHT_TYPES = "expected one of 'static', 'training_table'"
LlmWeight = Annotated[
    Annotated[StaticLlmWeight, tag("static")] | Annotated[TrainingLlmWeight, tag("training_table")],
    by_key("type", _WEIGHT_TYPES),
]
Mode = Literal[
    "generate", "select_thinking", "select_non_thinking", "select_thinking_logprobs", "select_non_thinking_logprobs"
]


class QueryLlm(StrictModel):
    """One LLM of a Query Model (sampling parameters live here, not on the request)."""

    id: str
    mode: Mode
    select_top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    frequency_penalty: Penalty | None = None
    presence_penalty: Penalty | None = None
    logit_bias: dict[str, float] | None = None
    max_completion_tokens: Positive | None = None
    max_tokens: Positive | None = None
    reasoning_effort: Effort | None = None
    stop: (
        Annotated[
            Annotated[str, tag("string")] | Annotated[list[str], tag("array")],
            by_shape("expected a string or an array of strings"),
        ]
        | None
    ) = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Unit | None = None
    min_p: Unit | None = None
    top_a: Unit | None = None
    repetition_penalty: Annotated[float, Field(ge=0, le=2)] | None = None
    top_k: Positive | None = None
    provider: ProviderPrefs | None = None
    reasoning: ReasoningPrefs | None = None
    verbosity: Effort | None = None
    models: list[str] | None = None
    weight: LlmWeight
    tool_response_format: Any = None

    @property
    def is_select(self) -> bool:
        return self.mode != "generate"


class StaticModelWeight(StrictModel):
    type: Literal["static"]


class TrainingModelWeight(StrictModel):
    type: Literal["training_table"]
    embeddings_model: str
    top: Positive


MAX_LLMS = 64
"""The LLMs of one Query Model (the emulator's limit, like `n`'s 16): a request's work grows with
LLMs x n, and 64 x 16 = 1,024 choices is past any ensemble in use."""


class QueryModel(StrictModel):
    """A Query Model: its LLMs and how their weights are found."""

    models: Annotated[list[QueryLlm], Field(min_length=1, max_length=MAX_LLMS)]
    weight: Annotated[
        Annotated[StaticModelWeight, tag("static")] | Annotated[TrainingModelWeight, tag("training_table")],
        by_key("type", _WEIGHT_TYPES),
    ]
    select_generated_reasoning: Any = None


KeyPath = tuple[str | int, ...]


def inconsistency(model: QueryModel) -> tuple[KeyPath, str] | None:
    """The first fault between fields of a valid-looking model (a path below the model and what is
    wrong), or None: an LLM weight of another type than the model's, a `min_weight` above `max_weight`."""
    for i, llm in enumerate(model.models):
        if llm.weight.type != model.weight.type:
            return ("models", i, "weight", "type"), f"must be {model.weight.type!r} like the Query Model's weight"
        if isinstance(llm.weight, TrainingLlmWeight) and llm.weight.min_weight > llm.weight.max_weight:
            return ("models", i, "weight", "min_weight"), "must not be greater than max_weight"
    return None


_WEIGHTS: dict[object, type[BaseModel]] = {"static": StaticLlmWeight, "training_table": TrainingLlmWeight}
_MODEL_WEIGHTS: dict[object, type[BaseModel]] = {"static": StaticModelWeight, "training_table": TrainingModelWeight}


Unknown = tuple[KeyPath, str]
"""Where an unknown key is, and why (with the key it most likely means)."""


def _unknown(value: Any, model: type[BaseModel], at: KeyPath) -> Unknown | None:
    if not isinstance(value, Mapping):
        return None
    key = next((key for key in value if key not in model.model_fields), None)
    if key is None:
        return None
    close = difflib.get_close_matches(str(key), list(model.model_fields), n=1)
    return (*at, key), f"unknown key {key!r}" + (f"; did you mean {close[0]!r}?" if close else "")


def _unknown_key(value: Any) -> Unknown | None:
    """The first key no Query Model object knows, or None (a request ignores such keys; a scenario
    file, where a typo would silently change the model's id, refuses them)."""
    found = _unknown(value, QueryModel, ())
    if found is not None or not isinstance(value, Mapping):
        return found
    weight = value.get("weight")
    kind = _MODEL_WEIGHTS.get(weight.get("type")) if isinstance(weight, Mapping) else None
    if kind is not None and (found := _unknown(weight, kind, ("weight",))):
        return found
    for i, llm in enumerate(value.get("models") or ()):
        at: KeyPath = ("models", i)
        found = _unknown(llm, QueryLlm, at)
        if found is None and isinstance(llm, Mapping):
            weight = llm.get("weight")
            kind = _WEIGHTS.get(weight.get("type")) if isinstance(weight, Mapping) else None
            parts: list[tuple[Any, type[BaseModel], str]] = [
                (llm.get("provider"), ProviderPrefs, "provider"),
                (llm.get("reasoning"), ReasoningPrefs, "reasoning"),
            ]
            parts += [(weight, kind, "weight")] if kind is not None else []
            found = next((f for part, cls, key in parts if (f := _unknown(part, cls, (*at, key)))), None)
        if found is not None:
            return found
    return None


def _known_keys(value: Any) -> Any:
    found = _unknown_key(value)
    if found is not None:
        raise PydanticCustomError("unknown_key", "{reason}", {"reason": found[1], "at": found[0], "key": True})
    return value


def _consistent(model: QueryModel) -> QueryModel:
    fault = inconsistency(model)
    if fault is not None:
        at, reason = fault
        raise PydanticCustomError("inconsistent", "{reason}", {"reason": reason, "at": at})
    return model


StoredQueryModel = Annotated[QueryModel, BeforeValidator(_known_keys), AfterValidator(_consistent)]
"""A Query Model of a scenario file's `query_models:`: unknown keys refused, weights consistent."""
