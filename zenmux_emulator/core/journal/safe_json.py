"""JSON of what the journal stored, whatever it is: a value orjson cannot write (nested past its
~255 levels, or text holding bytes that were not UTF-8) is written cleaned, never refused, so one
entry can never break `GET /_emulator/journal` or a `--journal` file."""

from __future__ import annotations

from typing import Any

import orjson

KEPT_DEPTH = 128
"""Levels kept when an entry must be cleaned; deeper values are replaced by a note."""


def dumps(data: Any) -> bytes:
    """`orjson.dumps(data)`, or the JSON of `data` cleaned when orjson refuses it."""
    try:
        return orjson.dumps(data, default=str)
    except (orjson.JSONEncodeError, TypeError):
        return orjson.dumps(clean(data), default=str)


def text(value: str) -> str:
    """A string orjson can write: bytes that were not UTF-8 (kept by the HTTP parser as lone
    surrogates) shown as `\\xff` escapes."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")


def clean(value: Any, depth: int = 0) -> Any:
    """`value` with every string made writable and anything nested past `KEPT_DEPTH` replaced."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (dict, list, tuple)) and depth >= KEPT_DEPTH:
        return f"(nested more than {KEPT_DEPTH} levels deep: not shown)"
    if isinstance(value, dict):
        return {text(str(k)): clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, depth + 1) for v in value]
    return value
