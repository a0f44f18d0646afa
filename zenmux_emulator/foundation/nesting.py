"""How deep a JSON document may nest: the parsers accept ~1,024 levels, the serialiser (orjson)
writes ~255, so a body deeper than `MAX_DEPTH` is refused where it is parsed, naming where."""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
"""Levels of objects and arrays a request body may nest (the top-level object is level 1): far
beyond what an API needs (a tool schema of 30 nested properties is 61 levels), far under 255."""
_SHOWN_KEY = 40


def deepest(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """The path (`x[0].y`) of the first object or array nested past `limit` levels, else None."""
    found = _past(value, 1, limit)
    if found is None:
        return None
    path = ""
    for key in reversed(found):
        if isinstance(key, int):
            path += f"[{key}]"
        else:
            shown = key if len(key) <= _SHOWN_KEY else key[:_SHOWN_KEY] + "…"
            path += f".{shown}" if path else shown
    return path or "the body"


def _past(value: Any, depth: int, limit: int) -> list[str | int] | None:
    """The keys (innermost first) down to a container past `limit`; only containers are visited."""
    if depth > limit:
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, (dict, list)):
            found = _past(item, depth + 1, limit)
            if found is not None:
                found.append(key)
                return found
    return None


_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_STRING = re.compile(rb'"[^"]*"')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_RUNS = re.compile(rb"\[+|\]+")


def depth_of(raw: bytes) -> int:
    """How deep valid JSON nests, read from its bytes at C speed (the walk of `deepest` visits every
    object and array in Python: 200,000 messages of one part each took seconds). Escapes go first,
    then everything but quotes and brackets; the strings left are then quote pairs around the
    brackets they held, taken out (empty ones, the usual, by `replace`); what remains is brackets.
    The deepest level is always an innermost pair `[]`: taking every one out leaves the rest one
    level shallower, which is done while it shrinks the brackets by a quarter or more; what is left
    is read as runs of openers and closers (a run of 60 is one step, not 60), and the deepest
    level is the largest running sum of their lengths."""
    marks = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in marks:
        marks = _STRING.sub(b"", marks)
    marks = marks.translate(_SQUARE)
    peeled = 0
    while marks and marks.count(b"[]") * 8 >= len(marks):
        marks, peeled = marks.replace(b"[]", b""), peeled + 1
    if not marks:
        return peeled
    steps = (len(run) if run[0] == 0x5B else -len(run) for run in _RUNS.findall(marks))
    return peeled + max(accumulate(steps))


def nesting_problem(raw: bytes, value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Why a decoded JSON body nests too deeply, or None. A body with no more than `limit` opening
    brackets cannot nest past it (counting them spares any more work for most bodies); past that,
    `depth_of` reads the depth from the bytes, and only a body that does nest too deeply is walked
    to name where."""
    if not isinstance(value, (dict, list)) or raw.count(b"[") + raw.count(b"{") <= limit:
        return None
    if depth_of(raw) <= limit:
        return None
    path = deepest(value, limit)
    if path is None:
        return None
    return f"Request body is nested more than {limit} levels deep at {path}"
