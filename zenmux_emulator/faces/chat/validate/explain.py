"""Turn a pydantic `ValidationError` into one ZenMux-style message naming the JSON path."""

from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from zenmux_emulator.faces.common.validation import NOT_VALID, WRONG_SHAPE

_MAX_SHOWN = 60

# pydantic error type -> what the value should have been
_EXPECTED_TYPE = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "an array",
    "tuple_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
}
_BOUNDS = {
    "greater_than": (">", "gt"),
    "greater_than_equal": (">=", "ge"),
    "less_than": ("<", "lt"),
    "less_than_equal": ("<=", "le"),
}


def show(value: Any) -> str:
    """A short JSON rendering of a value for an error message."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _quoted(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) and len(value) <= _MAX_SHOWN else show(value)


def _one_of(choices: str) -> str:
    """pydantic lists choices as `'a', 'b' or 'c'`; we say `one of 'a', 'b', 'c'` (or just `'a'`)."""
    listed = choices.replace(" or ", ", ")
    return f"one of {listed}" if ", " in listed else listed


@dataclass(slots=True)
class _Located:
    """Where an error's `loc` points in the body: the path, its document order and the value there."""

    segments: list[str | int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    node: Any = None

    def path(self, *extra: str) -> str:
        text = ""
        for segment in (*self.segments, *extra):
            text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else segment)
        return text


def _is_tag(node: dict[str, Any], segment: str, following: str | int | None, missing_next: bool) -> bool:
    """A union tag that equals a key (`{"type": "text", "text": ...}`): the next segment is its sibling."""
    if not isinstance(following, str) or following not in node:
        return False
    child = node[segment]
    if not isinstance(child, dict):
        return True
    return following not in child and not missing_next


def _locate(loc: tuple[str | int, ...], body: Any, missing: bool) -> _Located:
    """Follow `loc` through the body, dropping pydantic's internal segments (union branches, tags)."""
    located = _Located(node=body)
    last = len(loc) - 1
    tagged = False  # whether the current node's union tag was already passed
    for position, segment in enumerate(loc):
        node = located.node
        if isinstance(node, dict) and isinstance(segment, str) and segment in node:
            following = loc[position + 1] if position < last else None
            missing_next = missing and position + 1 == last
            if not tagged and (_is_tag(node, segment, following, missing_next)
                               or (missing_next and node.get("type") == segment)):
                tagged = True
                continue
            located.order.append(list(node).index(segment))
            located.segments.append(segment)
            located.node = node[segment]
            tagged = False
        elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
            located.order.append(segment)
            located.segments.append(segment)
            located.node = node[segment]
            tagged = False
        elif position == last and missing and isinstance(segment, str):
            located.order.append(len(node) if isinstance(node, dict) else 0)
            located.segments.append(segment)
            located.node = None
    return located


@dataclass(slots=True)
class _Problem:
    """One faulty parameter; several type errors at the same path (union branches) merge into one."""

    path: str
    order: list[int]
    required: bool = False
    detail: str = ""
    expected: list[str] = field(default_factory=list)
    got: Any = None

    def merge(self, other: "_Problem") -> None:
        for expected in other.expected:
            if expected not in self.expected:
                self.expected.append(expected)

    def render(self) -> str:
        if self.required:
            return f"Parameter {self.path} is required"
        detail = self.detail
        if self.expected:
            detail = f"expected {' or '.join(self.expected)}, got {show(self.got)}"
        return f"Parameter {self.path} is not valid" + (f": {detail}" if detail else "")


def _tag_name(error: ErrorDetails) -> str:
    return str(error.get("ctx", {}).get("discriminator", "type")).strip("'")


def _describe(error: ErrorDetails, body: Any) -> _Problem:
    kind, ctx, value = error["type"], error.get("ctx", {}), error.get("input")
    located = _locate(error["loc"], body, missing=kind == "missing")
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        tag = _tag_name(error)
        node = located.node
        order = [*located.order, list(node).index(tag) if isinstance(node, dict) and tag in node else 10**9]
        problem = _Problem(located.path(tag), order)
        if kind == "union_tag_not_found" or not isinstance(node, dict) or node.get(tag) is None:
            problem.required = True
        else:
            problem.detail = f"expected {_one_of(ctx['expected_tags'])}, got {_quoted(node[tag])}"
        return problem
    problem = _Problem(located.path() or "body", located.order)
    if kind == "missing":
        problem.required = True
    elif kind == NOT_VALID:
        problem.detail = error["msg"]
    elif kind == WRONG_SHAPE:
        problem.detail = f"{error['msg']}, got {show(value)}"
    elif kind in _EXPECTED_TYPE:
        problem.expected, problem.got = [_EXPECTED_TYPE[kind]], value
    elif kind == "literal_error":
        problem.detail = f"expected {_one_of(ctx['expected'])}, got {_quoted(value)}"
    elif kind == "string_pattern_mismatch":
        problem.detail = f"expected a string matching {ctx['pattern']}, got {_quoted(value)}"
    elif kind in _BOUNDS:
        operator, key = _BOUNDS[kind]
        problem.detail = f"expected a value {operator} {ctx.get(key)}, got {show(value)}"
    elif kind in ("too_long", "too_short"):
        limit = ctx.get("max_length" if kind == "too_long" else "min_length")
        problem.detail = f"expected at {'most' if kind == 'too_long' else 'least'} {limit} items"
    elif kind == "value_error":
        problem.detail = str(ctx.get("error", error["msg"]))
    else:
        message = error["msg"]
        problem.detail = message[:1].lower() + message[1:]
    return problem


def explain(error: ValidationError, body: Any) -> str:
    """One message for the first problem in document order, counting the others."""
    problems: dict[str, _Problem] = {}
    for detail in error.errors(include_url=False):
        problem = _describe(detail, body)
        if problem.path in problems:
            problems[problem.path].merge(problem)
        else:
            problems[problem.path] = problem
    ordered = sorted(problems.values(), key=lambda problem: problem.order)
    if not ordered:
        return "Request body is not valid"
    message = ordered[0].render()
    others = len(ordered) - 1
    if others:
        message += f" (and {others} more problem{'s' if others > 1 else ''})"
    return message
