"""The reply key a rule for System One requests may use beyond every face's (`SPEC.reply`):
`answers`, the answer a question gets, by the question's key.

A scripted answer is one of:

- a number: a `noul` question's probability of yes (0 to 1), or a `score` question's weighted
  value (0 to the last level's index), made from the two levels around it;
- a string: a `choice` question's option, made the most probable one;
- an object of weights: a `choice` question's options, or a `score` question's levels (by index,
  `"0"`, `"1"`, …, or by the level's text), normalised to probabilities that sum to 1.

An answer that does not fit its question (a string for a `noul`, an option the question does not
offer) is computed instead, with a warning in the journal entry."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from zenmux_emulator.scenario.schema import ReplyKeys


def _some_weight(weights: dict[str, float]) -> dict[str, float]:
    if not sum(weights.values()) > 0:
        raise ValueError("the weights must add up to more than 0")
    return weights


Weights = Annotated[dict[str, Annotated[float, Field(ge=0)]], AfterValidator(_some_weight)]
Scripted = Annotated[float, Field(ge=0)] | Annotated[str, Field(min_length=1)] | Weights


class AnswersReply(ReplyKeys):
    """`answers`: a question's scripted answer, by its key in the request's `questions`."""

    answers: dict[str, Scripted] | None = Field(
        None,
        description=(
            "a question's answer, by its key: a number (a noul's probability of yes, a score's "
            "weighted value), a string (a choice's option) or an object of weights (a choice's "
            "options or a score's levels, normalised); other questions get the computed answer"
        ),
    )
