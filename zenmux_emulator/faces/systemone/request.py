"""A System One request, checked as ZenMux documents it (docs_source/en/api/zenmux/systemone.md).
Rules match it on its state (`last_user`: the text, or an object's or array's JSON) and its
questions' instructions (`system`, one a line); every text reads as a user message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import InputsRequest
from zenmux_emulator.faces.systemone.models import CATALOGUE
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

MAX_QUESTIONS = 100
"""The most questions one request may ask."""
MAX_OPTIONS = 100
"""The most options a `choice` question, or levels a `score` question, may have."""
TYPES = ("noul", "choice", "score")
FIELDS = frozenset({"model", "state", "questions"})
QUESTION_FIELDS = frozenset({"type", "instructions", "criteria"})
NOUL_CRITERIA = frozenset({"true", "false"})


def as_text(value: object) -> str:
    """A string as it is; an object or array as its JSON (in the order sent)."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


@dataclass(frozen=True, slots=True)
class Question:
    """One question: its key, type, instructions (as text), and its options or levels (a `choice`'s
    option names; a `score`'s levels as sent; none for a `noul`)."""

    key: str
    type: str
    instructions: str
    criteria: Any
    options: tuple[str, ...]
    levels: tuple[Any, ...]

    @property
    def criteria_text(self) -> str:
        return "" if self.criteria is None else as_text(self.criteria)

    @property
    def size(self) -> int:
        """How many outcomes its distribution has (a `noul`'s: yes and no)."""
        return len(self.options) if self.type == "choice" else len(self.levels) if self.type == "score" else 2


class SystemOneRequest(InputsRequest):
    face = "systemone"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        questions: tuple[Question, ...],
        warnings: tuple[str, ...],
    ) -> None:
        super().__init__(body, headers, model=body["model"], warnings=warnings)
        self.state = as_text(body["state"])
        """The state as text: a string as sent, an object or array as its JSON."""
        self.questions = questions

    @cached
    def last_user(self) -> str:
        return self.state

    @cached
    def system(self) -> str:
        return "\n".join(question.instructions for question in self.questions)

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.state, *(question.instructions for question in self.questions))

    @cached
    def prompt_tokens(self) -> int:
        counted = tokens.count(self.state)
        for question in self.questions:
            counted += tokens.count(question.instructions) + tokens.count(question.criteria_text)
        return counted

    @cached
    def seed_material(self) -> bytes:
        parts = [self.state]
        for question in self.questions:
            parts += [question.key, question.type, question.instructions, question.criteria_text]
        return "\x00".join(parts).encode()


def _is_content(value: object) -> bool:
    """A string, an object or an array: what `state` and `instructions` may be."""
    return isinstance(value, (str, dict, list))


def _choice(where: str, criteria: object) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    if not isinstance(criteria, dict) or not criteria:
        raise invalid_params(
            f"Parameter {where} is not valid: expected an object mapping each option to its description or null"
        )
    if len(criteria) > MAX_OPTIONS:
        raise invalid_params(f"Parameter {where} is not valid: at most {MAX_OPTIONS} options")
    for option, description in criteria.items():
        if description is not None and not _is_content(description):
            raise invalid_params(f"Parameter {where}.{option} is not valid: expected a string or null")
    return tuple(criteria), ()


def _score(where: str, criteria: object) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    if not isinstance(criteria, list) or len(criteria) < 2:
        raise invalid_params(f"Parameter {where} is not valid: expected an array of at least two levels, in order")
    if len(criteria) > MAX_OPTIONS:
        raise invalid_params(f"Parameter {where} is not valid: at most {MAX_OPTIONS} levels")
    for index, level in enumerate(criteria):
        if not _is_content(level):
            raise invalid_params(f"Parameter {where}[{index}] is not valid: expected a string describing the level")
    return (), tuple(criteria)


def _noul(where: str, criteria: object) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    if criteria is None:
        return (), ()
    if not isinstance(criteria, dict):
        raise invalid_params(f"Parameter {where} is not valid: expected an object with true and false")
    for key, meaning in criteria.items():
        if key not in NOUL_CRITERIA:
            raise invalid_params(f"Parameter {where}.{key} is not valid: a noul's criteria are true and false")
        if not _is_content(meaning):
            raise invalid_params(f"Parameter {where}.{key} is not valid: expected a string")
    return (), ()


CRITERIA = {"noul": _noul, "choice": _choice, "score": _score}


def _question(key: str, given: object, warnings: list[str]) -> Question:
    where = f"questions.{key}"
    if not isinstance(given, dict):
        raise invalid_params(f"Parameter {where} is not valid: expected an object with type and instructions")
    if "type" not in given:
        raise invalid_params(f"Parameter {where}.type is required")
    kind = given["type"]
    if kind not in TYPES:
        raise invalid_params(f"Parameter {where}.type is not valid: expected one of {', '.join(TYPES)}")
    if "instructions" not in given:
        raise invalid_params(f"Parameter {where}.instructions is required")
    if not _is_content(given["instructions"]):
        raise invalid_params(f"Parameter {where}.instructions is not valid: expected a string, an object or an array")
    criteria = given.get("criteria")
    if criteria is None and kind != "noul":
        raise invalid_params(f"Parameter {where}.criteria is required for a {kind} question")
    options, levels = CRITERIA[kind](f"{where}.criteria", criteria)
    warnings.extend(
        f"{where}.{name}: not a System One question field; ignored" for name in given if name not in QUESTION_FIELDS
    )
    return Question(key, kind, as_text(given["instructions"]), criteria, options, levels)


def _top(body: object) -> dict[str, Any]:
    """The body's object with its model (one of this face's), state and questions checked present."""
    if not isinstance(body, dict):
        raise invalid_params("Request body is not valid: expected a JSON object")
    for field in ("model", "state", "questions"):
        if field not in body:
            raise invalid_params(f"Parameter {field} is required")
    model = body["model"]
    if not isinstance(model, str) or not model:
        raise invalid_params("Parameter model is not valid: expected a string")
    if model.partition(":")[0] not in CATALOGUE:
        raise invalid_params(f"Model {model} is not valid: not a System One model ({', '.join(CATALOGUE)})")
    state = body["state"]
    if not _is_content(state) or state == "":
        raise invalid_params("Parameter state is not valid: expected a non-empty string, an object or an array")
    return body


def parse_request(body: object, headers: Mapping[str, str]) -> SystemOneRequest:
    """Validate the body (400 `invalid_params` naming the field) and read it."""
    checked = _top(body)
    given = checked["questions"]
    if not isinstance(given, dict) or not given:
        raise invalid_params("Parameter questions is not valid: expected a non-empty object of questions by key")
    if len(given) > MAX_QUESTIONS:
        raise invalid_params(f"Parameter questions is not valid: at most {MAX_QUESTIONS} questions")
    warnings = [f"{name}: not a System One parameter; ignored" for name in checked if name not in FIELDS]
    questions = tuple(_question(key, question, warnings) for key, question in given.items())
    return SystemOneRequest(checked, headers, questions, tuple(warnings))
