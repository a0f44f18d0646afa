"""Pydantic's validation errors said in the words of the YAML file: what may be written there and
what was found, never the schema's class names (`TurnRange`, `Match`).

Errors at one place that come from the members of a union (`contains` takes text or a list) are
said together: "expected text or a list, got yes".
"""

from __future__ import annotations

import re

import pydantic
from pydantic_core import ErrorDetails

from zenmux_emulator.scenario import schema

_NOUNS = {
    "string_type": "text",
    "string_sub_type": "text",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a mapping",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "none_required": "nothing",
}
_MAPPINGS = ("model_type", "model_attributes_type", "dataclass_type")
SHORTHANDS = {
    "TurnRange": "a turn number, or a mapping with min and/or max",
    "TextMatch": "text, or a mapping of contains, not_contains, equals, starts_with, ends_with, regex, ignore_case",
}
"""What a value of these models may be written as, besides a mapping."""

BOOLEAN_WORDS = frozenset({"yes", "no", "on", "off", "y", "n", "true", "false"})
_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^\s,\]}#]+""")
_BOUNDS = {
    "greater_than": "greater than",
    "greater_than_equal": "greater than or equal to",
    "less_than": "less than",
    "less_than_equal": "less than or equal to",
}


def source_token(text: str, line: int | None, column: int | None) -> str:
    """The value as written at (line, column), quotes kept: `yes`, `"two"`; empty if not at hand."""
    if line is None or column is None:
        return ""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return ""
    found = _TOKEN.match(lines[line - 1], column - 1)
    return found.group(0) if found else ""


def _mapping_of(class_name: str) -> str:
    if class_name in SHORTHANDS:
        return SHORTHANDS[class_name]
    model = getattr(schema, class_name, None)
    if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        keys = [info.alias if isinstance(info.alias, str) else name for name, info in model.model_fields.items()]
        shown = ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "")
        return f"a mapping ({shown})"
    return "a mapping"


def expected(error: ErrorDetails) -> str | None:
    """What a type error wanted, in YAML words; None for an error that is not about the value's type."""
    kind = error["type"]
    if kind in _MAPPINGS:
        return _mapping_of(str((error.get("ctx") or {}).get("class_name", "")))
    return _NOUNS.get(kind)


def shown(value: object, token: str) -> str:
    """How a found value reads in the file."""
    if value is None:
        return "nothing (the key has no value)" if token in ("", "null", "~", "Null", "NULL") else token
    if isinstance(value, bool):
        return token or str(value).lower()
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    if isinstance(value, dict):
        return "an empty mapping" if not value else "a mapping"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return token or repr(value)


def boolean_hint(value: object, token: str, wanted: list[str]) -> str:
    """Why a word meant as text became a boolean, when it did."""
    if isinstance(value, bool) and token.lower() in BOOLEAN_WORDS and any("text" in w for w in wanted):
        return (
            f" (YAML reads an unquoted {token} as the boolean {str(value).lower()}; "
            f'write "{token}" in quotes to mean the text)'
        )
    return ""


def type_mismatch(errors: list[ErrorDetails], token: str) -> str:
    """One sentence for the type errors at one place: every form allowed there, and what was found."""
    wanted: list[str] = []
    for error in errors:
        noun = expected(error)
        if noun is not None and noun not in wanted:
            wanted.append(noun)
    value = errors[0].get("input")
    choice = " or ".join(wanted) if len(wanted) < 3 else ", ".join(wanted[:-1]) + " or " + wanted[-1]
    return f"expected {choice}, got {shown(value, token)}" + boolean_hint(value, token, wanted)


def reworded(error: ErrorDetails, token: str) -> str | None:
    """The YAML wording of an error about a value's size, bounds or choices; None to keep pydantic's."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "literal_error":
        return f"expected one of {str(ctx.get('expected', '')).replace(' or ', ', ')}, got {shown(value, token)}"
    if kind in _BOUNDS:
        bound = next(iter(v for k, v in ctx.items() if k in ("gt", "ge", "lt", "le")), "")
        limit = f"{bound:g}" if isinstance(bound, float) else str(bound)
        return f"expected a number {_BOUNDS[kind]} {limit}, got {shown(value, token)}"
    if kind == "too_short":
        least = ctx.get("min_length", 1)
        return f"expected at least {least} item{'s' if least != 1 else ''}, got {shown(value, token)}"
    if kind == "string_too_short":
        return f"expected at least {ctx.get('min_length', 1)} character(s), got an empty text"
    if kind == "finite_number":
        return f"expected a finite number, got {shown(value, token)}"
    return None
