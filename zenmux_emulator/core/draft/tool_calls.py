"""Tool calls of a reply: the scripted ones as sent on the wire, or ones synthesised from the
offered tool's JSON Schema when `tool_choice` demands a call and nothing is scripted.

`tool_choice: none` drops scripted calls (with a warning), a forced function keeps only the
scripted calls to it (a call is made up when none is scripted; the others are dropped with a
warning), `parallel_tool_calls: false` keeps only the first, and a call to a tool the request did
not offer is sent as scripted but warned of.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from zenmux_emulator.core.draft.schema_values import Unsatisfiable, schema_value, unsatisfiable
from zenmux_emulator.core.neutral.request import ToolOptions
from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.scenario.schema import ToolCallSpec

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see core.draft.draft.Kit)

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(hex_digest: str, length: int) -> str:
    number = int(hex_digest, 16)
    chars: list[str] = []
    while len(chars) < length:
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return "".join(chars)


def call_id(model: str, *parts: object) -> str:
    """A deterministic id in the style of the model's vendor: `toolu_01…` or `call_…`."""
    token = digest(*parts, size=24)
    if model.startswith("anthropic/"):
        return "toolu_01" + _base62(token, 22)
    return "call_" + _base62(token, 24)


def _wire(spec: ToolCallSpec, call: str) -> dict[str, Any]:
    if spec.type == "custom":
        return {"id": call, "type": "custom", "custom": {"name": spec.name, "input": spec.input or ""}}
    arguments = spec.arguments
    text = (
        arguments if isinstance(arguments, str) else orjson.dumps(arguments if arguments is not None else {}).decode()
    )
    return {"id": call, "type": "function", "function": {"name": spec.name, "arguments": text}}


def _synthesised(name: str, tool: Mapping[str, Any], faker: Faker) -> ToolCallSpec:
    if tool.get("type") == "custom":
        return ToolCallSpec(name=name, type="custom", input=faker.sentence())
    schema = tool.get("parameters") or {"type": "object", "properties": {}}
    where = f"the parameters of tool {name!r}"
    arguments = schema_value(faker, schema, where, untyped="object")
    if not isinstance(arguments, dict):  # a call's arguments are a JSON object
        raise unsatisfiable(
            where,
            Unsatisfiable(
                (), f"a tool's arguments are a JSON object, and this schema makes {type(arguments).__name__} values"
            ),
        )
    return ToolCallSpec(name=name, arguments=arguments)


def synthesised_call(name: str, tool: Mapping[str, Any], faker: Faker, call: str) -> dict[str, Any]:
    """A call to an offered tool with arguments made from its schema, as a wire object."""
    return _wire(_synthesised(name, tool, faker), call)


def tool_calls(
    specs: Sequence[ToolCallSpec] | None,
    options: ToolOptions,
    model: str,
    faker: Faker,
    id_parts: tuple[object, ...],
    rule: str | None,
    warnings: list[str],
) -> list[dict[str, Any]]:
    """The reply's tool calls as wire objects (possibly none); notes what it changed in `warnings`."""
    who = f"rule {rule!r}" if rule else "the default reply"
    chosen = list(specs or ())
    if options.choice == "none":
        if chosen:
            warnings.append(f"tool_choice is none: the {len(chosen)} tool call(s) scripted by {who} were not sent")
        return []
    forced = options.choice if options.choice in options.offered else None
    if forced is not None and chosen:
        others = [spec for spec in chosen if spec.name != forced]
        if others:
            warnings.append(
                f"tool_choice forces {forced!r}: the {len(others)} other tool call(s) scripted by {who} were not sent"
            )
            chosen = [spec for spec in chosen if spec.name == forced]
    if not chosen:
        if options.choice == "required" and options.offered:
            forced = next(iter(options.offered))
        if forced is None:
            return []
        chosen = [_synthesised(forced, options.offered[forced], faker)]
    if not options.parallel and len(chosen) > 1:
        warnings.append(f"parallel_tool_calls is false: only the first of {len(chosen)} tool calls was sent")
        chosen = chosen[:1]
    calls = []
    for i, spec in enumerate(chosen):
        if spec.name not in options.offered:
            warnings.append(f"{who} calls tool {spec.name!r}, which the request did not offer")
        calls.append(_wire(spec, spec.id or call_id(model, *id_parts, i)))
    return calls
