"""Pydantic validation errors turned into located `ScenarioProblem`s (file, line, dotted path, snippet)."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping, Sequence

import pydantic
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from zenmux_emulator.foundation.errors import ScenarioProblem
from zenmux_emulator.foundation.strict import NO_DATA, locate_error
from zenmux_emulator.scenario.outline import (
    KeyPath,
    PositionMap,
    dotted,
    locate,
    snippet,
)
from zenmux_emulator.scenario.schema import FACE_KEY, NOT_JSON
from zenmux_emulator.scenario.wording import expected, reworded, shown, source_token, type_mismatch

_PREFIXES = ("Value error, ", "Assertion failed, ")


def _real_path(loc: tuple[str | int, ...], data: object, missing: bool) -> KeyPath:
    """The loc segments that are real keys or indices of `data`; union tags and member names dropped."""
    return tuple(locate_error(loc, data, missing).path)


def _expand(tp: object) -> list[object]:
    """`tp` without Annotated/Optional/Union wrappers, as the list of its members."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _expand(typing.get_args(tp)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [member for arg in typing.get_args(tp) for member in _expand(arg)]
    return [tp]


def _owner(info: FieldInfo) -> str | None:
    """The face a key belongs to, for a face's own reply key (`language.py` marks it), else None."""
    extra = info.json_schema_extra
    face = extra.get(FACE_KEY) if isinstance(extra, dict) else None
    return face if isinstance(face, str) else None


def _field_names(model: type[pydantic.BaseModel] | None, loc: tuple[str | int, ...]) -> dict[str, str | None]:
    """Field names (and aliases) the model allows at `loc`, found by following annotations loosely,
    with the face each belongs to (None: every face's)."""
    current = _expand(model) if model is not None else []
    for segment in loc:
        named = [tp for tp in current if getattr(tp, "__name__", None) == segment]
        following: list[object] = []
        for tp in named or current:
            origin, args = typing.get_origin(tp), typing.get_args(tp)
            if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
                for name, info in tp.model_fields.items():
                    if segment in (name, info.alias, info.validation_alias):
                        following += _expand(info.annotation)
            elif isinstance(segment, int) and origin in (list, tuple, set, Sequence) and args:
                following += _expand(args[0])
            elif isinstance(segment, str) and origin in (dict, Mapping) and len(args) == 2:
                following += _expand(args[1])
        current = following or named or current  # an unknown segment is a union tag: stay put
    names: dict[str, str | None] = {}
    for tp in current:
        if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
            for name, info in tp.model_fields.items():
                names[info.alias if isinstance(info.alias, str) else name] = _owner(info)
    return names


def _reason(error: ErrorDetails, model: type[pydantic.BaseModel] | None, token: str) -> str:
    kind, loc, value = error["type"], error["loc"], error.get("input")
    if kind == "missing":
        return f"missing key {loc[-1]!r}" if loc else "missing key"
    if kind == "extra_forbidden" and loc:
        reason, allowed = f"unknown key {loc[-1]!r}", _field_names(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), list(allowed), n=1)
        if not close:
            return reason
        face = allowed[close[0]]
        return reason + f"; did you mean {close[0]!r}" + (f" (a {face} reply key)?" if face else "?")
    if (said := reworded(error, token)) is not None:
        return said
    message = error["msg"]
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    if message.startswith("Input should be "):
        message = "expected " + message.removeprefix("Input should be ")
    if isinstance(value, (str, int, float, bool)) and kind not in ("value_error", "assertion_error", NOT_JSON):
        message += f", got {shown(value, token)}"
    return message


def problems_from_validation_error(
    exc: pydantic.ValidationError,
    *,
    text: str,
    filename: str,
    positions: PositionMap,
    root: KeyPath = (),
    data: object = NO_DATA,
    model: type[pydantic.BaseModel] | None = None,
) -> list[ScenarioProblem]:
    """Every error of `exc` located in the source, in document order.

    `data` is what was validated (the value at `root`); with it, loc segments that are not real keys
    are dropped exactly, without it by their look. `model` (the validated class) enables
    "did you mean" suggestions for unknown keys. A validator that finds the fault inside its field's
    value gives the path below the field as `at` in the error's context (and `key`: the fault is
    that path's last key), as the schema's `json_data` does.
    """
    found: list[tuple[KeyPath, ErrorDetails]] = []
    for error in exc.errors(include_url=False):
        context = error.get("ctx") or {}
        found.append(
            (
                root + _real_path(tuple(error["loc"]), data, error["type"] == "missing") + tuple(context.get("at", ())),
                error,
            )
        )
    # A union member that got past the value's type (its error lies deeper) says more than the
    # members that did not: their "expected ..." is dropped. The rest at one place are said together.
    deeper = {path[:depth] for path, _ in found for depth in range(len(path))}
    at_path: dict[KeyPath, list[ErrorDetails]] = {}
    for path, error in found:
        if expected(error) is None or path not in deeper:
            at_path.setdefault(path, []).append(error)
    problems: dict[tuple[str, str], tuple[tuple[int, int], ScenarioProblem]] = {}
    for path, errors in at_path.items():
        specific = [e for e in errors if expected(e) is None]
        for error in specific or errors[:1]:
            context = error.get("ctx") or {}
            line, column = locate(positions, path, key=error["type"] == "extra_forbidden" or context.get("key") is True)
            token = source_token(text, line, column)
            reason = _reason(error, model, token) if specific else type_mismatch(errors, token)
            problem = ScenarioProblem(filename, line, column, dotted(path), reason, snippet(text, line, column))
            # Union members repeat a fault; keep it once, with the fullest wording (a "did you mean").
            seen = problems.get(key := (problem.path, reason.split(";")[0]))
            if seen is None or len(reason) > len(seen[1].reason):
                problems[key] = ((line, column), problem)
    return [problem for _, problem in sorted(problems.values(), key=lambda pair: pair[0])]
