"""Shapes, not texts: what two answers to the same request are compared by.

Pure functions over parsed answers. A JSON body becomes its paths and their JSON types (`$.usage.
total_tokens: number`, array items under `[]`); a stream becomes its event grammar (each event's
type, consecutive repeats folded into one `+`) and the merged shape of each event type's data;
headers become their names. Volatile values (ids, times, texts, token counts) are never compared:
only ids' format (their prefix), error types and codes, and the number of tool calls (none, one or
several) are values that count."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

IGNORED_HEADERS = frozenset(
    {
        "date",
        "server",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "content-encoding",
        "vary",
        "via",
        "alt-svc",
        "nel",
        "report-to",
        "set-cookie",
        "strict-transport-security",
        "expires",
        "etag",
        "age",
        "accept-ranges",
    }
)
"""Headers a transport, a CDN or a proxy adds: not the gateway's contract."""
IGNORED_PREFIXES = ("x-emulator-", "cf-", "access-control-", "x-cache", "x-amz-", "x-envoy-")
"""The emulator's own diagnostics, and families of infrastructure headers."""
ERROR_VALUES = ("$.error.type", "$.error.code", "$.type")
"""Values compared in a refusal: the error's type and code name the failure."""
ID_KEYS = frozenset({"id", "tool_use_id", "call_id", "item_id", "response_id"})
ID_PREFIX = re.compile(r"^([A-Za-z]+[_-])")


@dataclass(frozen=True, order=True)
class Difference:
    """One way the upstream's answer differs from the emulator's: `added` (the upstream has it, the
    emulator not), `missing` (the emulator has it, the upstream not), `retyped`, `status`,
    `stream-order`, `error`, `id-format`, `tool-calls`."""

    kind: str
    path: str
    upstream: str = ""
    emulator: str = ""

    def describe(self) -> str:
        if self.kind in ("added", "missing"):
            return f"{self.kind} {self.path}" + (
                f" ({self.upstream or self.emulator})" if self.upstream or self.emulator else ""
            )
        return f"{self.kind} {self.path}: upstream {self.upstream}, emulator {self.emulator}"


@dataclass
class Answer:
    """What one side answered: its status, headers, JSON body (None if not JSON) and, for a
    stream, its events as (event name or None, parsed data or the raw text)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    events: list[tuple[str | None, Any]] | None = None


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_shape(value: Any, path: str = "$", into: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Every path of `value` and the JSON types seen there (array items merged under `[]`)."""
    shape: dict[str, set[str]] = {} if into is None else into
    shape.setdefault(path, set()).add(type_of(value))
    if isinstance(value, dict):
        for key, item in value.items():
            json_shape(item, f"{path}.{key}", shape)
    elif isinstance(value, list):
        for item in value:
            json_shape(item, f"{path}[]", shape)
    return shape


def _below_reported(path: str, reported: Iterable[str]) -> bool:
    return any(path.startswith(parent + ".") or path.startswith(parent + "[]") for parent in reported)


def _types(types: set[str]) -> str:
    return "|".join(sorted(types))


def compare_shapes(
    upstream: Mapping[str, set[str]], emulator: Mapping[str, set[str]], prefix: str = ""
) -> list[Difference]:
    """Paths added, missing or retyped; below a path reported added or missing, nothing more."""
    found: list[Difference] = []
    reported: list[str] = []
    for path in sorted(set(upstream) | set(emulator)):
        if _below_reported(path, reported):
            continue
        up, em = upstream.get(path), emulator.get(path)
        if em is None and up is not None:
            found.append(Difference("added", prefix + path, _types(up)))
            reported.append(path)
        elif up is None and em is not None:
            found.append(Difference("missing", prefix + path, "", _types(em)))
            reported.append(path)
        elif up is not None and em is not None and up != em:
            found.append(Difference("retyped", prefix + path, _types(up), _types(em)))
    return found


def header_names(headers: Mapping[str, str]) -> set[str]:
    """The gateway's own header names, lowercased: no transport or infrastructure header."""
    names = {name.lower() for name in headers}
    return {n for n in names if n not in IGNORED_HEADERS and not n.startswith(IGNORED_PREFIXES)}


def media_type(headers: Mapping[str, str]) -> str:
    for name, value in headers.items():
        if name.lower() == "content-type":
            return value.split(";")[0].strip().lower()
    return ""


def compare_headers(upstream: Mapping[str, str], emulator: Mapping[str, str]) -> list[Difference]:
    up, em = header_names(upstream), header_names(emulator)
    found = [Difference("added", f"header:{name}") for name in sorted(up - em)]
    found += [Difference("missing", f"header:{name}") for name in sorted(em - up)]
    if media_type(upstream) != media_type(emulator):
        found.append(Difference("retyped", "header:content-type", media_type(upstream), media_type(emulator)))
    return found


def value_at(value: Any, path: str) -> Any:
    """The value at a plain `$.a.b` path, or None."""
    for key in path.removeprefix("$").split(".")[1:]:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def compare_errors(upstream: Any, emulator: Any) -> list[Difference]:
    found = []
    for path in ERROR_VALUES:
        up, em = value_at(upstream, path), value_at(emulator, path)
        if (up is not None or em is not None) and str(up) != str(em) and not isinstance(up, dict | list):
            found.append(Difference("error", path, str(up), str(em)))
    return found


def id_formats(value: Any, path: str = "$", into: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """The prefix (`call_`, `msg_`, `chatcmpl-`, or none) of every id-like string, by path."""
    formats: dict[str, set[str]] = {} if into is None else into
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str):
                found = ID_PREFIX.match(item)
                formats.setdefault(f"{path}.{key}", set()).add(found.group(1) if found else "(no prefix)")
            else:
                id_formats(item, f"{path}.{key}", formats)
    elif isinstance(value, list):
        for item in value:
            id_formats(item, f"{path}[]", formats)
    return formats


def compare_ids(upstream: Any, emulator: Any, prefix: str = "") -> list[Difference]:
    up, em = id_formats(upstream), id_formats(emulator)
    return [
        Difference("id-format", prefix + path, _types(up[path]), _types(em[path]))
        for path in sorted(set(up) & set(em))
        if up[path] != em[path]
    ]


def tool_call_count(value: Any) -> str:
    """How many tool calls an answer makes, as a shape: none, one or several."""
    count = _count_calls(value)
    return "none" if count == 0 else "one" if count == 1 else "several"


def _count_calls(value: Any) -> int:
    if isinstance(value, list):
        return sum(_count_calls(item) for item in value)
    if not isinstance(value, dict):
        return 0
    if value.get("type") in ("tool_use", "function_call") or ("function" in value and "id" in value):
        return 1
    return sum(_count_calls(item) for item in value.values())


def chat_label(data: Any) -> str:
    """A Chat Completions chunk named by what it carries: role, content, reasoning, tool_calls,
    finish, usage (in that order, joined by `+`)."""
    if not isinstance(data, dict):
        return str(data)
    parts: list[str] = []
    for choice in data.get("choices") or []:
        delta = choice.get("delta") or {} if isinstance(choice, dict) else {}
        for key in ("role", "content", "reasoning", "reasoning_content", "tool_calls"):
            if delta.get(key) and key not in parts:
                parts.append(key)
        if isinstance(choice, dict) and choice.get("finish_reason") is not None and "finish" not in parts:
            parts.append("finish")
    if data.get("usage"):
        parts.append("usage")
    return "chunk(" + "+".join(parts) + ")"


def event_type(name: str | None, data: Any) -> str:
    """An event's type: its `event:` name, else its data's `type`, else a chat chunk's label."""
    if name:
        return name
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return str(data["type"])
    if isinstance(data, dict) and "choices" in data:
        return chat_label(data)
    return str(data) if isinstance(data, str) else type_of(data)


def grammar(events: Sequence[tuple[str | None, Any]]) -> list[str]:
    """The stream's event types in order, consecutive repeats folded into one `type+`."""
    folded: list[str] = []
    for name, data in events:
        kind = event_type(name, data)
        if folded and folded[-1].rstrip("+") == kind:
            folded[-1] = kind + "+"
        else:
            folded.append(kind)
    return folded


def event_shapes(events: Sequence[tuple[str | None, Any]]) -> dict[str, set[str]]:
    """The merged shape of each event type's data, its paths prefixed by the type."""
    merged: dict[str, set[str]] = {}
    for name, data in events:
        kind = event_type(name, data)
        if not kind.startswith("chunk("):
            json_shape(data, f"event:{kind}$", merged)
        else:
            json_shape(data, "event:chunk$", merged)
    return merged


def compare_streams(
    upstream: Sequence[tuple[str | None, Any]], emulator: Sequence[tuple[str | None, Any]]
) -> list[Difference]:
    found = []
    up, em = grammar(upstream), grammar(emulator)
    if up != em:
        found.append(Difference("stream-order", "events", " ".join(up), " ".join(em)))
    found += compare_shapes(event_shapes(upstream), event_shapes(emulator))
    return found


def compare(upstream: Answer, emulator: Answer) -> list[Difference]:
    """Every difference in shape between two answers to one request."""
    if upstream.status != emulator.status:
        return [Difference("status", "status", str(upstream.status), str(emulator.status))]
    found = compare_headers(upstream.headers, emulator.headers)
    if upstream.events is not None or emulator.events is not None:
        found += compare_streams(upstream.events or [], emulator.events or [])
        return found
    found += compare_shapes(json_shape(upstream.body), json_shape(emulator.body))
    if upstream.status >= 400:
        found += compare_errors(upstream.body, emulator.body)
    found += compare_ids(upstream.body, emulator.body)
    up_calls, em_calls = tool_call_count(upstream.body), tool_call_count(emulator.body)
    if up_calls != em_calls:
        found.append(Difference("tool-calls", "tool_calls", up_calls, em_calls))
    return found
