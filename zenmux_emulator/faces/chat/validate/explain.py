"""Turn a pydantic `ValidationError` into one ZenMux-style message naming the JSON path."""

from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from zenmux_emulator.faces.common.validation import NOT_VALID, WRONG_SHAPE, locate_error

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
    located = locate_error(error["loc"], body, missing=kind == "missing", keyed_tags=True)
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        tag = _tag_name(error)
        node = located.node
        order = [*located.order, list(node).index(tag) if isinstance(node, dict) and tag in node else 10**9]
        problem = _Problem(located.dotted(tag), order)
        if kind == "union_tag_not_found" or not isinstance(node, dict) or node.get(tag) is None:
            problem.required = True
        else:
            problem.detail = f"expected {_one_of(ctx['expected_tags'])}, got {_quoted(node[tag])}"
        return problem
    problem = _Problem(located.dotted() or "body", located.order)
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
