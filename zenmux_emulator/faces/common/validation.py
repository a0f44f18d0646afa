"""Shared building blocks of the request models: the base model, custom errors and reusable checks."""

from typing import Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator
from pydantic_core import PydanticCustomError

# Error types that `explain` renders specially; both carry a ready "expected ..." text in `msg`.
NOT_VALID = "not_valid"
WRONG_SHAPE = "wrong_shape"


class Model(BaseModel):
    """Base of every request model: strict JSON types, unknown keys ignored, immutable."""

    model_config = ConfigDict(
        strict=True,
        extra="ignore",
        frozen=True,
        protected_namespaces=(),
    )


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


def _shape_of(value: Any) -> str | None:
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict | BaseModel):
        return "object"
    return None


def by_shape(expected: str) -> Discriminator:
    """Pick a union branch by JSON type, tagged `string`, `array` or `object`; `expected` names the choices."""
    return Discriminator(_shape_of, custom_error_type=WRONG_SHAPE, custom_error_message=expected)
