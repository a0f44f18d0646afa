"""A question's answer: computed from the seed, the model and the question (never its key, which
ZenMux does not send to the model), or made from a rule's scripted answer.

Probabilities are whole ten-thousandths, shared out by the largest remainder so that they add up
to exactly 10,000: rendered with four decimals at most, they sum to 1 exactly in decimal. A
`choice` is its most probable option (the first of equals), a `score` the probability-weighted
level index, and `confidence` is 1 minus the distribution's normalised entropy (1 - H(p) / ln n,
four decimals): 1 when one outcome has it all, 0 when all are equally likely."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from hashlib import shake_256
from typing import Any

from zenmux_emulator.faces.systemone.reply import Scripted
from zenmux_emulator.faces.systemone.request import Question

UNITS = 10_000
"""The probabilities' denominator: ten-thousandths."""


def share(weights: Sequence[Fraction | int]) -> list[int]:
    """Weights (not all 0) as whole units adding up to UNITS: each its floor, and the units left
    to the largest remainders (the first of equals)."""
    total = sum(weights)
    exact = [Fraction(weight) * UNITS / total for weight in weights]
    units = [math.floor(value) for value in exact]
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - units[i]), i))
    for index in by_remainder[: UNITS - sum(units)]:
        units[index] += 1
    return units


def stream(seed: int, model: str, state: str, question: Question, size: int) -> bytes:
    """`size` bytes that depend on the seed, the model, the state and the question's content."""
    material = "\x1f".join((str(seed), model, state, question.type, question.instructions, question.criteria_text))
    return shake_256(material.encode()).digest(size)


def computed(seed: int, model: str, state: str, question: Question) -> list[int]:
    """A question's distribution in units (a `noul`'s: yes, then no). Each outcome weighs the cube
    of one more than a byte of the stream, so one or two outcomes usually stand out."""
    if question.type == "noul":
        yes = int.from_bytes(stream(seed, model, state, question, 2), "big") * UNITS // 0xFFFF
        return [yes, UNITS - yes]
    return share([(1 + byte) ** 3 for byte in stream(seed, model, state, question, question.size)])


def confidence(units: Sequence[int]) -> float:
    """1 minus the normalised entropy, four decimals (1 for a single outcome)."""
    if len(units) < 2:
        return 1.0
    entropy = -sum(u / UNITS * math.log(u / UNITS) for u in units if u)
    return round(max(0.0, 1 - entropy / math.log(len(units))), 4)


def _level_index(question: Question, key: str) -> int | None:
    """A score level named by its index (`"0"`) or by its text."""
    if key.isdigit() and int(key) < len(question.levels):
        return int(key)
    texts = [level if isinstance(level, str) else None for level in question.levels]
    return texts.index(key) if key in texts else None


def _weighted(question: Question, weights: dict[str, float]) -> list[int] | None:
    """A scripted object of weights as units over the question's outcomes (None: it names one the
    question lacks, or a noul's)."""
    if question.type == "choice":
        index = {option: i for i, option in enumerate(question.options)}
        found: list[int | None] = [index.get(key) for key in weights]
    elif question.type == "score":
        found = [_level_index(question, key) for key in weights]
    else:
        return None
    if None in found:
        return None
    spread = [Fraction(0)] * question.size
    for position, weight in zip(found, weights.values(), strict=True):
        spread[position or 0] += Fraction(weight)
    return share(spread)


def _level_value(question: Question, value: float) -> list[int] | None:
    """A scripted score value made from the two levels around it (None: out of the levels' range)."""
    if not 0 <= value <= question.size - 1:
        return None
    lower = math.floor(value)
    units = [0] * question.size
    upper = round((value - lower) * UNITS)
    units[lower] = UNITS - upper
    if upper:
        units[lower + 1] = upper
    return units


def _chosen(question: Question, option: str, base: list[int]) -> list[int] | None:
    """The computed distribution with the scripted option swapped in as its most probable."""
    if question.type != "choice" or option not in question.options:
        return None
    units = list(base)
    top, at = max(units), question.options.index(option)
    peak = units.index(top)
    units[peak], units[at] = units[at], units[peak]
    return units


def scripted(question: Question, answer: Scripted, base: list[int]) -> list[int] | None:
    """A rule's answer as units (None: it does not fit the question)."""
    if isinstance(answer, dict):
        return _weighted(question, answer)
    if isinstance(answer, str):
        return _chosen(question, answer, base)
    if question.type == "noul":
        return [round(answer * UNITS), UNITS - round(answer * UNITS)] if answer <= 1 else None
    return _level_value(question, answer) if question.type == "score" else None


def rendered(question: Question, units: list[int], choice: str | None = None) -> dict[str, Any]:
    """The answer object ZenMux documents for the question's type."""
    if question.type == "noul":
        return {"type": "noul", "noul": units[0] / UNITS}
    if question.type == "choice":
        best = choice or question.options[units.index(max(units))]
        probabilities = {option: u / UNITS for option, u in zip(question.options, units, strict=True)}
        return {"type": "choice", "choice": best, "probabilities": probabilities, "confidence": confidence(units)}
    return {
        "type": "score",
        "score": sum(i * u for i, u in enumerate(units)) / UNITS,
        "legend": {str(i): level for i, level in enumerate(question.levels)},
        "probabilities": {str(i): u / UNITS for i, u in enumerate(units)},
        "confidence": confidence(units),
    }
