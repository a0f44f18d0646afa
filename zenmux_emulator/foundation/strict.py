"""The wire models' toolkit: one strict base model and one way to choose a union's branch.

Every face's request models and the scenario language's Query Models (`scenario/query_model.py`,
validated at load) are built from these, so they live at the bottom; faces reach them through
`faces/common/validation.py`. A union's tags carry a prefix (`TAG`), so the segments pydantic adds
to an error's location for a branch are known by their look and dropped (`is_tag`). `locate_error` is the
one reading of an error's location every face's explainer and the scenario loader use: the real
keys and indices it names, in the data that was validated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    fields often), immutable, and built on first validation (a process builds the validators of the
    faces it is asked only)."""

    model_config = ConfigDict(
        strict=True, extra="ignore", frozen=True, allow_inf_nan=False, protected_namespaces=(), defer_build=True
    )


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


def _keyed(key: str, default: str | None, known: tuple[str, ...] | None) -> Callable[[Any], str | None]:
    def pick(value: Any) -> str | None:
        found = value.get(key, default) if isinstance(value, dict) else getattr(value, key, default)
        if not isinstance(found, str):
            return None
        return TAG + ("other" if known is not None and found not in known else found)

    return pick


def by_key(
    key: str, expected: str | None = None, default: str | None = None, known: tuple[str, ...] | None = None
) -> Discriminator:
    """A union chosen by the string at `key` (`default` when it is absent). With `expected`, a
    missing or unknown tag fails as `BAD_TAG` + key with that text; without it, with pydantic's
    own `union_tag_*` errors, whose expected tags `tag_names` reads. With `known`, any other string
    is tagged `other` (a branch for what a newer client sends and the emulator does not read)."""
    if expected is None:
        return Discriminator(_keyed(key, default, known))
    return Discriminator(_keyed(key, default, known), custom_error_type=BAD_TAG + key, custom_error_message=expected)


def tag_names(expected_tags: object) -> list[str]:
    """The tag names of a `union_tag_invalid` error's `expected_tags`, without their prefix."""
    return [name.strip(" '").removeprefix(TAG) for name in str(expected_tags).split(",")]


_INTERNAL = re.compile(r"[\w-]+\[.*\]\Z|(str|int|float|bool|bytes|none|list|dict|tuple|set)\Z")
"""Location segments pydantic adds for a plain union's members and for validators, known by their look."""
NO_DATA: Any = object()
"""`locate_error`'s data when the validated value is not at hand: segments are then judged by their look."""


@dataclass(slots=True)
class Location:
    """Where an error's location points in the validated data: the real keys and indices, the
    position of each among its siblings (for document order) and the value there (None when missing)."""

    path: list[str | int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    node: Any = None

    def dotted(self, *extra: str | int, prefix: str = "") -> str:
        """The path as the faces write it: `messages[0].content`, after `prefix` when one is given."""
        text = prefix
        for segment in (*self.path, *extra):
            text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else segment)
        return text

    def step(self, segment: str | int, position: int, node: Any) -> None:
        self.path.append(segment)
        self.order.append(position)
        self.node = node


def _key_is_tag(node: Mapping[str, Any], segment: str, following: str | int | None, missing_next: bool) -> bool:
    """A union tag that equals a key (`{"type": "text", "text": ...}`): the next segment is its sibling."""
    if not isinstance(following, str) or following not in node:
        return False
    child = node[segment]
    if not isinstance(child, dict):
        return True
    return following not in child and not missing_next


def locate_error(
    loc: Sequence[str | int], data: Any = NO_DATA, missing: bool = False, keyed_tags: bool = False
) -> Location:
    """Follow a pydantic error's `loc` through `data`, keeping the real keys and indices and dropping
    what pydantic adds (union branches, tags, validators). `missing`: the error is a missing key,
    which the last segment names. `keyed_tags`: the unions are pydantic's own `discriminator=` ones,
    whose tags are values that may also be keys. Without `data`, segments are judged by their look."""
    located = Location(node=data)
    if data is NO_DATA:
        located.path = [s for s in loc if isinstance(s, int) or not (is_tag(s) or _INTERNAL.match(s))]
        return located
    last = len(loc) - 1
    passed_tag = False  # whether the current node's union tag was already passed
    for position, segment in enumerate(loc):
        node = located.node
        if isinstance(node, Mapping) and isinstance(segment, str) and segment in node:
            following = loc[position + 1] if position < last else None
            missing_next = missing and position + 1 == last
            if (
                keyed_tags
                and not passed_tag
                and (
                    _key_is_tag(node, segment, following, missing_next)
                    or (missing_next and node.get("type") == segment)
                )
            ):
                passed_tag = True
                continue
            located.step(segment, list(node).index(segment), node[segment])
            passed_tag = False
        elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
            located.step(segment, segment, node[segment])
            passed_tag = False
        elif position == last and missing and isinstance(segment, str):
            located.step(segment, len(node) if isinstance(node, Mapping) else 0, None)
    return located
