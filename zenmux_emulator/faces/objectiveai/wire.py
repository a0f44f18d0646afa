"""`parse(body)`: a Query request validated (§2.1, §4.9) into a `QueryRequest`, or `QueryRejected`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from zenmux_emulator.faces.common.counts import ConversationCaps
from zenmux_emulator.faces.common.validation import BAD_TAG, locate_error
from zenmux_emulator.scenario.query_model import MAX_LLMS, QueryLlm, QueryModel, inconsistency

from . import ids
from .deterministic import NotEnumerable, enumerate_values
from .errors import QueryRejected, invalid_request, rejected
from .models import KNOWN_FIELDS, JsonSchemaFormat, QueryBody


class QueryModelRegistry(Protocol):
    """Where models named by id are looked up and remembered (`registry.QueryModelRegistry`)."""

    def get(self, name: str) -> QueryModel | None: ...

    def remember(self, name: str, model: QueryModel) -> None: ...


CAPS = ConversationCaps("messages", ("content", "tool_calls"))
"""The messages a request may hold, and their content parts and tool calls in all (chat's, see `counts`)."""
_NAME = re.compile(r"^(?:[^/\s]+/)?([0-9A-Za-z]{22})$")


@dataclass(frozen=True, slots=True)
class QueryRequest:
    """A valid Query request: its fields, the resolved Query Model and what was derived from it."""

    body: QueryBody
    raw: dict[str, Any]  # the JSON body as received (for prompt sizes and seeding)
    model: QueryModel
    model_id: str
    llm_ids: tuple[str, ...]  # in the order of `model.models`
    model_indices: tuple[int, ...]  # `model_index` of each LLM, same order
    deterministic_values: tuple[Any, ...]  # the select_deterministic values, empty when off
    warnings: tuple[str, ...]

    @property
    def json_schema(self) -> JsonSchemaFormat | None:
        rf = self.body.response_format
        return rf if isinstance(rf, JsonSchemaFormat) else None

    @property
    def schema(self) -> dict[str, Any] | None:
        """The json_schema's schema (`{}` when it has none), or None without a json_schema."""
        rf = self.json_schema
        return None if rf is None else rf.json_schema.schema_ or {}


def _path(loc: tuple[str | int, ...], prefix: str = "") -> str:
    return locate_error(loc).dotted(prefix=prefix)


def _text(error: ErrorDetails) -> str:
    kind, msg = error["type"], error["msg"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not allowed"
    if kind == "literal_error":
        return "expected one of " + msg[len("Input should be ") :].replace(" or ", ", ")
    if msg.startswith("Input should be "):
        return "expected " + msg[len("Input should be ") :]
    if msg.startswith("Value error, "):
        return msg[len("Value error, ") :]
    return msg[:1].lower() + msg[1:]


def _first_error(exc: ValidationError, prefix: str = "") -> QueryRejected:
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    if error["type"].startswith(BAD_TAG):
        key = error["type"][len(BAD_TAG) :]
        present = isinstance(error.get("input"), dict) and key in error["input"]
        text = _text(error) if present else "is required"
        return invalid_request(_path(loc, prefix) + f".{key}" if _path(loc, prefix) else key, text)
    if error["type"] == "too_short" and loc and loc[-1] in ("messages", "models"):
        return invalid_request(_path(loc, prefix), "must not be empty")
    if error["type"] == "too_long" and loc and loc[-1] == "models":
        return invalid_request(
            _path(loc, prefix),
            f"must have at most {MAX_LLMS} LLMs (the emulator's limit), "
            f"not {error.get('ctx', {}).get('actual_length', 'more')}",
        )
    return invalid_request(_path(loc, prefix), _text(error))


def validate_model(value: Any, path: str = "model") -> tuple[QueryModel, list[str]]:
    """A Query Model object validated, with its cross-field checks; warnings for ignored fields."""
    try:
        model = QueryModel.model_validate(value)
    except ValidationError as exc:
        raise _first_error(exc, path) from None
    warnings = []
    dot = f"{path}." if path else ""
    if model.select_generated_reasoning is not None:
        warnings.append(f"{dot}select_generated_reasoning is not on the seed and is ignored")
    fault = inconsistency(model)
    if fault is not None:
        raise invalid_request(_path(fault[0], path), fault[1])
    for i, llm in enumerate(model.models):
        if llm.tool_response_format is not None:
            warnings.append(f"{dot}models[{i}].tool_response_format is not on the seed and is ignored")
    return model, warnings


def validate_llm(value: Any) -> QueryLlm:
    """One Query LLM validated on its own (`POST /query_llms`); errors name its fields."""
    try:
        return QueryLlm.model_validate(value)
    except ValidationError as exc:
        raise _first_error(exc) from None


def model_name(value: object) -> str | None:
    """The Query Model id a request's `model` names (None: none, or a model given as an object)."""
    found = _NAME.match(value) if isinstance(value, str) else None
    return found.group(1) if found is not None else None


def model_ids(model: QueryModel) -> tuple[str, tuple[str, ...], tuple[int, ...]]:
    """(Query Model id, LLM ids in given order, their model indices)."""
    llm_ids = tuple(ids.llm_id(llm.model_dump(exclude_none=True)) for llm in model.models)
    return ids.query_model_id(model.weight.model_dump(), llm_ids), llm_ids, tuple(ids.model_indices(llm_ids))


def _resolve_model(value: Any, registry: QueryModelRegistry | None) -> tuple[QueryModel, list[str]]:
    if value is None:
        raise invalid_request("model", "is required")
    if isinstance(value, str):
        if value.lstrip().startswith("{"):
            try:
                value = json.loads(value)
            except ValueError:
                raise rejected(400, "invalid_model", "model: is not valid JSON") from None
        else:
            found = _NAME.match(value)
            if found is None:
                raise rejected(
                    400, "invalid_model", "model: expected a 22-character Query Model name or a Query Model object"
                )
            stored = registry.get(found.group(1)) if registry is not None else None
            if stored is None:
                raise rejected(404, "model_not_found", f"model: no Query Model named {found.group(1)}")
            return stored, []
    if not isinstance(value, dict):
        raise rejected(400, "invalid_model", "model: expected a 22-character Query Model name or a Query Model object")
    return validate_model(value)


def _deterministic(body: QueryBody, model: QueryModel) -> tuple[Any, ...]:
    rf = body.response_format
    if all(llm.is_select for llm in model.models) and body.select_deterministic is not True:
        raise invalid_request("select_deterministic", "must be true when every LLM in the Query Model is a select LLM")
    if body.select_deterministic is not True:
        return ()
    if not isinstance(rf, JsonSchemaFormat):
        raise invalid_request("response_format", "select_deterministic needs a json_schema response format")
    try:
        return tuple(enumerate_values(rf.json_schema.schema_ or {}))
    except NotEnumerable as exc:
        raise invalid_request("", str(exc)) from None


def parse(body: object, registry: QueryModelRegistry | None = None, body_bytes: int | None = None) -> QueryRequest:
    """Validate a `POST /query/completions` body (of `body_bytes` bytes of JSON, when known). A
    model given by name is looked up in `registry`; a model given as an object is remembered
    there. Raises `QueryRejected` (400 / 404)."""
    if not isinstance(body, dict):
        raise invalid_request("body", "expected a JSON object")
    overlong = CAPS.overlong(body, body_bytes)
    if overlong is not None:
        text = (
            f"must have at most {overlong.limit} messages (the emulator's limit), not {overlong.count}"
            if not overlong.parts
            else f"too many content parts and tool calls: at most {overlong.limit} are allowed in all messages "
            f"together (the emulator's limit), and this one brings them to {overlong.count}"
        )
        raise invalid_request(_path(overlong.path), text)
    try:
        fields = QueryBody.model_validate(body)
    except ValidationError as exc:
        raise _first_error(exc) from None
    model, warnings = _resolve_model(body.get("model"), registry)
    values = _deterministic(fields, model)
    model_id, llm_ids, indices = model_ids(model)
    if registry is not None:
        registry.remember(model_id, model)
    warnings = [
        f"{key} is not a Query request field and is ignored" for key in body if key not in KNOWN_FIELDS
    ] + warnings
    rf = fields.response_format
    if isinstance(rf, JsonSchemaFormat) and ids.misspelled_confidence(rf.json_schema.schema_):
        warnings.append("response_format.json_schema.schema uses '_confidence_'; read as '_confidence'")
    return QueryRequest(
        body=fields,
        raw=body,
        model=model,
        model_id=model_id,
        llm_ids=llm_ids,
        model_indices=indices,
        deterministic_values=values,
        warnings=tuple(warnings),
    )
