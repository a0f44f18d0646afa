"""Tool `parameters` (and structured-output schemas) checked against JSON Schema's own meta-schema
by jsonschema, at parse time on every face that takes them: a schema that is not one (say
`{"properties": true}`) is a 400 naming where, before anything tries to make values from it.

The check walks the 2020-12 meta-schema for every subschema, so its cost grows with the schema and it
is bounded three ways: a schema of more than `MAX_WEIGHT` subschemas is refused before it is checked;
one of more than `INLINE_WEIGHT` is checked in a thread (`foundation.offload`), not on the event
loop; and verdicts are kept by the schema's text and, for the large ones, by its text with its
`description`, `title` and `$comment` strings blanked, so an agent that edits a description is not
checked again."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import AfterValidator

from zenmux_emulator.faces.common.validation import not_valid
from zenmux_emulator.foundation.offload import defer

if TYPE_CHECKING:
    from jsonschema import SchemaError

CHECKED_SCHEMAS = 1024
"""Distinct schemas whose verdict is kept (each way): agents send the same tools on every turn."""
INLINE_WEIGHT = 16
"""A schema this light (see `weight`) is checked on the event loop: a few milliseconds at most."""
MAX_WEIGHT = 10_000
"""The heaviest schema checked (10,000 subschemas: about 3 s of a thread); heavier is a 400."""
PROSE = frozenset({"description", "title", "$comment"})
"""Keywords whose string value the meta-schema only asks to be a string."""


class _Verdicts:
    """The last `CHECKED_SCHEMAS` verdicts (None: valid), by a schema's JSON; shared by the loop and
    the checking threads (each step of an OrderedDict is atomic under the GIL)."""

    def __init__(self) -> None:
        self.kept: OrderedDict[bytes, str | None] = OrderedDict()

    def get(self, key: bytes) -> tuple[bool, str | None]:
        try:
            verdict = self.kept[key]
        except KeyError:
            return False, None
        self.kept.move_to_end(key, last=True)
        return True, verdict

    def put(self, key: bytes, verdict: str | None) -> None:
        self.kept[key] = verdict
        while len(self.kept) > CHECKED_SCHEMAS:
            self.kept.popitem(last=False)


_EXACT = _Verdicts()
_PLAIN = _Verdicts()


def weight(text: bytes) -> int:
    """About how many subschemas (and strings in arrays, a sixteenth each) a schema's JSON holds:
    what the check's time follows, counted in C over the bytes."""
    return text.count(b"{") + text.count(b"true") + text.count(b"false") + text.count(b",") // 16


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (its path inside the schema and the reason), or None.
    Checked against the draft its `$schema` names, 2020-12 when it names none (or one not known)."""
    text = orjson.dumps(schema)
    known, verdict = _EXACT.get(text)
    if known:
        return verdict
    heavy = weight(text)
    if heavy > MAX_WEIGHT:
        return (
            f"a JSON Schema may hold at most {MAX_WEIGHT} subschemas (the emulator's limit on what it "
            f"checks), this one about {heavy}"
        )
    if heavy <= INLINE_WEIGHT:
        verdict = _problem(schema)
        _EXACT.put(text, verdict)
        return verdict
    return defer(lambda: _check_heavy(schema, text))


def _check_heavy(schema: dict[str, Any], text: bytes) -> str | None:
    """The verdict on a large schema (in a thread while a request is parsed): the verdict on its
    prose-blanked twin when known or valid; else its own, for the message its own words give."""
    plain = orjson.dumps(_blank(schema))
    known, verdict = _PLAIN.get(plain)
    if not known:
        verdict = _problem(orjson.loads(plain))
        _PLAIN.put(plain, verdict)
    if verdict is not None and plain != text:  # blanking keeps a valid schema valid, not the message
        verdict = _problem(schema)
    _EXACT.put(text, verdict)
    return verdict


def _blank(value: Any) -> Any:
    """`value` with each string under a key of `PROSE` made empty: the meta-schema asks only that
    they be strings, and an empty string fails no check a string passes."""
    if isinstance(value, dict):
        return {key: "" if key in PROSE and isinstance(item, str) else _blank(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_blank(item) for item in value]
    return value


def _problem(schema: dict[str, Any]) -> str | None:
    """The verdict on one schema (jsonschema imported by the first request with a schema)."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match

    declared = schema.get("$schema")
    if declared is not None and not isinstance(declared, str):
        return f"not a valid JSON Schema: $schema must be a string (a meta-schema URI), got {declared!r}"
    checker = validators.validator_for(schema, default=Draft202012Validator)
    validator = checker(checker.META_SCHEMA, format_checker=checker.FORMAT_CHECKER)
    error: SchemaError | None = best_match(validator.iter_errors(schema))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"not a valid JSON Schema: {error.message}" + (f" at {where}" if where else "")


def _checked(schema: dict[str, Any]) -> dict[str, Any]:
    problem = schema_problem(schema)
    if problem is not None:
        raise not_valid(problem)
    return schema


JsonSchema = Annotated[dict[str, Any], AfterValidator(_checked)]
"""A JSON object that is a valid JSON Schema (pydantic's error names the field; the detail, where inside)."""
