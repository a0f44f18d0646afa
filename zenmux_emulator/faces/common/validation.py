"""The faces' toolkit for request models: the strict base model and the union helpers (made in
`foundation/strict.py`, which the scenario language's Query Models share), custom errors and
reusable checks."""

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from zenmux_emulator.foundation.strict import (
    BAD_TAG,
    TAG,
    WRONG_SHAPE,
    StrictModel,
    by_key,
    by_shape,
    is_tag,
    locate_error,
    tag,
    tag_names,
)

__all__ = [
    "BAD_TAG",
    "NOT_VALID",
    "TAG",
    "WRONG_SHAPE",
    "StrictModel",
    "at_least",
    "between",
    "by_key",
    "by_shape",
    "is_tag",
    "locate_error",
    "not_valid",
    "tag",
    "tag_names",
]

NOT_VALID = "not_valid"
"""Error type whose `msg` is a ready "expected ..." text (`explain` renders it as the detail)."""


def not_valid(detail: str) -> PydanticCustomError:
    """A validation error whose rendered text is `Parameter <path> is not valid: <detail>`."""
    return PydanticCustomError(NOT_VALID, "{detail}", {"detail": detail})


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def between(low: float, high: float, kind: str = "a number") -> AfterValidator:
    """Accept values in [low, high]; otherwise name the range."""

    def check(value: float) -> float:
        if low <= value <= high:
            return value
        raise not_valid(f"expected {kind} between {low} and {high}, got {_number(value)}")

    return AfterValidator(check)


def at_least(low: float, kind: str = "a number") -> AfterValidator:
    """Accept values >= low; otherwise name the bound."""

    def check(value: float) -> float:
        if value >= low:
            return value
        raise not_valid(f"expected {kind} >= {low}, got {_number(value)}")

    return AfterValidator(check)
