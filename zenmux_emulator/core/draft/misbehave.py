"""A drafted reply made wrong on purpose: the misbehaviour catalogue (`foundation.misbehaviours`)
applied to a `Draft`, face-neutral, so every face renders the fault through what it already renders.

What a face reads besides the draft's usual fields: `draft.misbehaved` (the fault and variant
applied, for a face with its own word for one, such as a Vertex `MALFORMED_FUNCTION_CALL`) and
`draft.cut_call` (the last tool call's arguments were cut mid-way, `stop-length-mid-tool`). The
finish reason stays neutral (`length`, `content_filter`, `stop`, `tool_calls`) and each face maps
it as it maps any other.

Draws come from the `random.Random` the caller seeds (seed, session, rule, ordinal), so the same
request in the same place of a run is wrong the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from zenmux_emulator.core.draft import reasoning
from zenmux_emulator.core.draft.draft import Draft, Kit, default_reasoning
from zenmux_emulator.core.draft.tool_calls import call_id, synthesised_call
from zenmux_emulator.core.draft.usage import usage_object
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.misbehaviours import CATALOGUE, Applied, Ask

EXTRA_PROPERTY = "__emulator_extra"
"""The property `extra-property` adds (the tool schema must refuse extra properties)."""
REFUSALS = (
    "I'm sorry, but I can't help with that.",
    "I can't assist with that request.",
    "I'm unable to help with this.",
)
UNKNOWN_TOOL = "unknown_tool"
"""The name of the call `tool-unknown-name` makes when the request offers no tool."""


class NotApplicable(Exception):
    """The fault cannot be committed on this request (the message says why): the reply goes out
    as drafted, with a warning."""


def misbehave(draft: Draft, ask: Ask, source: str, facts: NeutralRequest, kit: Kit, rng: random.Random) -> Applied:
    """Make `draft` wrong as `ask` says (in place); raise NotApplicable when it cannot be."""
    kind = CATALOGUE[ask.fault]
    variants = [ask.variant] if ask.variant is not None else rng.sample(kind.variants, len(kind.variants))
    if kind.tool:
        index = _target(draft, ask.fault, facts, kit)
        for variant in variants or [""]:
            if _TOOL_FAULTS[ask.fault](draft, index, variant, facts, rng):
                return Applied(ask.fault, variant, source)
        tried = ", ".join(variants)
        raise NotApplicable(
            f"fault {ask.fault} ({tried}) cannot be committed on the tool call "
            f"{_name(draft.tool_calls[index])!r}: its schema allows it"
        )
    _REPLY_FAULTS[ask.fault](draft, facts, kit, rng)
    return Applied(ask.fault, "", source)


# tool calls -----------------------------------------------------------------------------------


def _name(call: Mapping[str, Any]) -> str:
    return str(call[call["type"]]["name"])


def _target(draft: Draft, fault: str, facts: NeutralRequest, kit: Kit) -> int:
    """The index of the function call the fault alters; one is made to the forced (or first)
    offered tool when the reply has none."""
    calls = list(draft.tool_calls)
    for i, call in enumerate(calls):
        if call["type"] == "function":
            return i
    offered = facts.tool_options.offered
    functions = [name for name, tool in offered.items() if tool.get("type") != "custom"]
    if not functions and fault != "tool-unknown-name":
        raise NotApplicable(f"fault {fault} needs a tool call: the reply has none and the request offers no function")
    name = facts.stated_tool_choice if facts.stated_tool_choice in functions else None
    name = name or (functions[0] if functions else UNKNOWN_TOOL)
    kit.faker.seed_instance(kit.seed)
    made = synthesised_call(
        name,
        offered.get(name, {}),
        kit.faker,
        call_id(draft.model, kit.seed, "misbehave", facts.seed_material[:16].hex()),
    )
    draft.tool_calls = [*calls, made]
    draft.content = draft.refusal = None
    draft.finish_reason = "tool_calls"
    return len(calls)


def _arguments(call: Mapping[str, Any]) -> str:
    return str(call["function"]["arguments"])


def _set_arguments(draft: Draft, index: int, text: str) -> None:
    calls = [dict(call) for call in draft.tool_calls]
    calls[index]["function"] = {**calls[index]["function"], "arguments": text}
    draft.tool_calls = calls


def _is_json(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def _parsed(text: str) -> Any:
    try:
        return orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        return {}


def _invalid_json(draft: Draft, index: int, variant: str, facts: NeutralRequest, rng: random.Random) -> bool:
    value = _parsed(_arguments(draft.tool_calls[index]))
    text = orjson.dumps(value).decode()
    if variant == "truncated":
        wrong = text[: max(1, len(text) * 2 // 3)] if len(text) > 1 else "{"
    elif variant == "trailing-comma":
        wrong = (
            text[:-1] + ",}" if isinstance(value, dict) else text[:-1] + ",]" if isinstance(value, list) else text + ","
        )
    else:  # single-quotes: Python's spelling of the value
        if not isinstance(value, dict) or not value:
            value = {"value": value} if not isinstance(value, dict) else {"note": "x"}
        wrong = repr(value)
    if _is_json(wrong):
        return False
    _set_arguments(draft, index, wrong)
    return True


def _tool_schema(facts: NeutralRequest, name: str) -> Mapping[str, Any]:
    tool = facts.tool_options.offered.get(name) or {}
    schema = tool.get("parameters")
    return schema if isinstance(schema, Mapping) else {"type": "object", "properties": {}}


def _rejects(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether the request's own tool schema refuses the value (a schema jsonschema cannot read refuses nothing)."""
    from jsonschema.exceptions import SchemaError  # imported by the first schema-breaking fault only
    from jsonschema.validators import validator_for
    from referencing.exceptions import Unresolvable

    try:
        return not validator_for(schema)(schema).is_valid(value)
    except (SchemaError, Unresolvable, RecursionError):  # no violation can be shown against it
        return False


_WRONG_VALUES: dict[str, Any] = {
    "string": 12345,
    "number": "twelve",
    "integer": "twelve",
    "boolean": "yes",
    "object": "not an object",
    "array": "not an array",
    "null": "not null",
}


def _violation(variant: str, value: dict[str, Any], schema: Mapping[str, Any], rng: random.Random) -> Any:
    """The value made wrong the variant's way, or None when the schema offers no handle for it."""
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    assert isinstance(properties, Mapping)
    if variant == "not-object":
        return orjson.dumps(value).decode()  # the arguments object as a JSON string
    if variant == "extra-property":
        return {**value, EXTRA_PROPERTY: True}
    if variant == "missing-required":
        required = [key for key in schema.get("required") or () if isinstance(key, str)]
        if not required:
            return None
        key = rng.choice(required)
        return {k: v for k, v in value.items() if k != key}
    if variant == "wrong-type":
        typed = [
            key
            for key, sub in properties.items()
            if isinstance(sub, Mapping) and isinstance(sub.get("type"), str) and sub["type"] in _WRONG_VALUES
        ]
        if not typed:
            return None
        key = rng.choice(typed)
        return {**value, key: _WRONG_VALUES[properties[key]["type"]]}
    enumerated = [
        key for key, sub in properties.items() if isinstance(sub, Mapping) and isinstance(sub.get("enum"), list)
    ]
    if not enumerated:
        return None
    key = rng.choice(enumerated)
    allowed = properties[key]["enum"]
    wrong = "not-" + "-".join(str(option) for option in allowed[:1])
    while wrong in allowed:
        wrong += "-x"
    return {**value, key: wrong}


def _schema_violation(draft: Draft, index: int, variant: str, facts: NeutralRequest, rng: random.Random) -> bool:
    call = draft.tool_calls[index]
    value = _parsed(_arguments(call))
    schema = _tool_schema(facts, _name(call))
    wrong = _violation(variant, value if isinstance(value, dict) else {}, schema, rng)
    if wrong is None or not _rejects(schema, wrong):
        return False
    _set_arguments(draft, index, orjson.dumps(wrong).decode())
    return True


def _unknown_name(draft: Draft, index: int, variant: str, facts: NeutralRequest, rng: random.Random) -> bool:
    offered = facts.tool_options.offered
    name = _name(draft.tool_calls[index])
    wrong = name if name not in offered else name + "_v2"
    while wrong in offered:
        wrong += "_v2"
    calls = [dict(call) for call in draft.tool_calls]
    calls[index]["function"] = {**calls[index]["function"], "name": wrong}
    draft.tool_calls = calls
    return True


def _duplicate_id(draft: Draft, index: int, variant: str, facts: NeutralRequest, rng: random.Random) -> bool:
    calls = [dict(call) for call in draft.tool_calls]
    others = [i for i in range(len(calls)) if i != index]
    if others:
        calls[others[0]]["id"] = calls[index]["id"]
    else:  # a second, parallel call to the same tool under the same id
        calls.insert(index + 1, {**calls[index], "function": dict(calls[index]["function"])})
    draft.tool_calls = calls
    return True


def _stop_length(draft: Draft, index: int, variant: str, facts: NeutralRequest, rng: random.Random) -> bool:
    text = orjson.dumps(_parsed(_arguments(draft.tool_calls[index]))).decode()
    cut = text[: max(1, len(text) // 2)]
    draft.tool_calls = [*draft.tool_calls[:index], {**draft.tool_calls[index]}]
    _set_arguments(draft, index, cut)
    draft.finish_reason = "length"
    draft.cut_call = True
    return True


_TOOL_FAULTS: dict[str, Callable[[Draft, int, str, NeutralRequest, random.Random], bool]] = {
    "tool-args-invalid-json": _invalid_json,
    "tool-args-schema-violation": _schema_violation,
    "tool-unknown-name": _unknown_name,
    "tool-call-id-duplicate": _duplicate_id,
    "stop-length-mid-tool": _stop_length,
}


# the whole reply ------------------------------------------------------------------------------


def _spent(draft: Draft, completion: int, reasoning_tokens: int = 0) -> None:
    prompt = int(draft.usage["prompt_tokens"])
    cached = int(draft.usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
    draft.usage = usage_object(prompt, completion, reasoning_tokens, cached)


def _bare(draft: Draft) -> None:
    """Nothing left of the answer: no text, refusal, reasoning, calls or citations."""
    draft.content = draft.refusal = draft.reasoning = None
    draft.reasoning_details = None
    draft.tool_calls = draft.annotations = ()
    draft.stop_sequence = None


def _empty(draft: Draft, facts: NeutralRequest, kit: Kit, rng: random.Random) -> None:
    _bare(draft)
    draft.content, draft.finish_reason = "", "stop"
    _spent(draft, 0)


def _refusal(draft: Draft, facts: NeutralRequest, kit: Kit, rng: random.Random) -> None:
    _bare(draft)
    draft.refusal, draft.finish_reason = rng.choice(REFUSALS), "stop"
    _spent(draft, tokens.count(draft.refusal))


def _content_filter(draft: Draft, facts: NeutralRequest, kit: Kit, rng: random.Random) -> None:
    _bare(draft)
    draft.finish_reason = "content_filter"
    _spent(draft, 0)


def _reasoning_only(draft: Draft, facts: NeutralRequest, kit: Kit, rng: random.Random) -> None:
    thinking, details = draft.reasoning, draft.reasoning_details
    if thinking is None:
        thinking = default_reasoning(kit, facts)
        details = reasoning.details(reasoning.shape_of(draft.model), thinking, kit.signer, kit.seed)
    _bare(draft)
    draft.reasoning, draft.reasoning_details, draft.finish_reason = thinking, details, "length"
    spent = tokens.count(thinking)
    _spent(draft, spent, spent)


_REPLY_FAULTS: dict[str, Callable[[Draft, NeutralRequest, Kit, random.Random], None]] = {
    "empty-response": _empty,
    "refusal": _refusal,
    "content-filter": _content_filter,
    "reasoning-only": _reasoning_only,
}
