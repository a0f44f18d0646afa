"""The wire models' toolkit: one strict base model and one way to choose a union's branch.

Every face's request models and the scenario language's Query Models (`scenario/query_model.py`,
validated at load) are built from these, so they live at the bottom; faces reach them through
`faces/common/validation.py`. A union's tags carry a prefix (`TAG`), so the segments pydantic adds
to an error's location for a branch are known by their look and dropped (`is_tag`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Discriminator, Tag

TAG = "§"
"""Prefix of every union tag made here: an error location's segment that starts with it is a branch."""
WRONG_SHAPE = "wrong_shape"
"""Error type of a value whose JSON type no branch of a `by_shape` union takes; its text is `expected`."""
BAD_TAG = "bad_tag:"
"""Error type of a missing or unknown `by_key` tag when the union names what it expected, then the key."""


class StrictModel(BaseModel):
    """Base of every wire model: strict JSON types, no infinities, unknown keys ignored (APIs grow
    fields often), immutable."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, allow_inf_nan=False,
                              protected_namespaces=())


def tag(name: str) -> Tag:
    """The tag of a union's branch, for `by_key` and `by_shape` unions."""
    return Tag(TAG + name)


def is_tag(segment: str | int) -> bool:
    """Whether an error location's segment is a union branch rather than a key or an index."""
    return isinstance(segment, str) and segment.startswith(TAG)


def shape_of(value: Any) -> str | None:
    """A JSON value's shape, tagged: string, array or object."""
    if isinstance(value, str):
        return TAG + "string"
    if isinstance(value, list | tuple):
        return TAG + "array"
    if isinstance(value, dict | BaseModel):
        return TAG + "object"
    return None


def by_shape(expected: str) -> Discriminator:
    """A union chosen by JSON type (branches tagged `string`, `array`, `object`); any other value
    fails as `WRONG_SHAPE` with `expected` as its text."""
    return Discriminator(shape_of, custom_error_type=WRONG_SHAPE, custom_error_message=expected)


def _keyed(key: str, default: str | None) -> Callable[[Any], str | None]:
    def pick(value: Any) -> str | None:
        found = value.get(key, default) if isinstance(value, dict) else getattr(value, key, default)
        return TAG + found if isinstance(found, str) else None

    return pick


def by_key(key: str, expected: str | None = None, default: str | None = None) -> Discriminator:
    """A union chosen by the string at `key` (`default` when it is absent). With `expected`, a
    missing or unknown tag fails as `BAD_TAG` + key with that text; without it, with pydantic's
    own `union_tag_*` errors, whose expected tags `tag_names` reads."""
    if expected is None:
        return Discriminator(_keyed(key, default))
    return Discriminator(_keyed(key, default), custom_error_type=BAD_TAG + key, custom_error_message=expected)


def tag_names(expected_tags: object) -> list[str]:
    """The tag names of a `union_tag_invalid` error's `expected_tags`, without their prefix."""
    return [name.strip(" '").removeprefix(TAG) for name in str(expected_tags).split(",")]
