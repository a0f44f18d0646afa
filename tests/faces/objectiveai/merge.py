"""The client SDK's merge rules (spec §1), written from the rules, not copied: chunks merged by
`choice.index`; `content` / `reasoning` / `refusal` concatenated; `tool_calls` merged by `index`;
other scalars first-non-null-wins; usage numbers summed; `completion_metadata` drops `provider`.
`as_unary` then turns the merged chunk into the unary shape to compare with the unary body."""

from __future__ import annotations

from typing import Any

_CONCAT = ("content", "reasoning", "refusal")
_NULLABLE = ("logprobs", "generate_id", "confidence_id", "confidence_weight", "confidence")


def _sum_usage(into: dict[str, Any] | None, usage: dict[str, Any] | None) -> dict[str, Any] | None:
    if usage is None:
        return into
    out = dict(into or {})
    for key, value in usage.items():
        if isinstance(value, dict):
            out[key] = _sum_usage(out.get(key), value)
        elif key not in out or out[key] is None:
            out[key] = value
        elif isinstance(value, int | float):
            out[key] = out[key] + value
    return out


def _first(into: dict[str, Any], item: dict[str, Any], skip: tuple[str, ...]) -> None:
    for key, value in item.items():
        if key not in skip and into.get(key) is None:
            into[key] = value


def _tool_calls(into: list[dict[str, Any]], calls: list[dict[str, Any]]) -> None:
    for call in calls:
        found = next((c for c in into if c["index"] == call["index"]), None)
        if found is None:
            into.append({**call, "function": dict(call.get("function") or {})})
            continue
        for key in ("id", "type"):
            found[key] = found.get(key) or call.get(key)
        fn, add = found.setdefault("function", {}), call.get("function") or {}
        fn["name"] = fn.get("name") or add.get("name")
        fn["arguments"] = (fn.get("arguments") or "") + (add.get("arguments") or "")


def _delta(into: dict[str, Any], delta: dict[str, Any]) -> None:
    for key, value in delta.items():
        if key in _CONCAT and isinstance(value, str):
            into[key] = (into.get(key) or "") + value
        elif key == "tool_calls":
            _tool_calls(into.setdefault("tool_calls", []), value)
        elif into.get(key) is None:
            into[key] = value


def _metadata(into: dict[str, Any] | None, meta: dict[str, Any]) -> dict[str, Any]:
    out = dict(into or {})
    for key in ("id", "created", "model", "service_tier", "system_fingerprint"):
        if out.get(key) is None and meta.get(key) is not None:
            out[key] = meta[key]
    usage = _sum_usage(out.get("usage"), meta.get("usage"))
    if usage is not None:
        out["usage"] = usage
    return out


def merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge `chat.completion.chunk`s into one chunk."""
    merged: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        _first(merged, chunk, ("choices", "usage"))
        merged["usage"] = _sum_usage(merged.get("usage"), chunk.get("usage"))
        for choice in chunk["choices"]:
            into = choices.setdefault(choice["index"], {"delta": {}})
            _delta(into["delta"], choice.get("delta") or {})
            into["completion_metadata"] = _metadata(into.get("completion_metadata"), choice["completion_metadata"])
            _first(into, choice, ("delta", "completion_metadata"))
    merged["choices"] = [choices[i] for i in sorted(choices)]
    return merged


def as_unary(merged: dict[str, Any]) -> dict[str, Any]:
    """The merged chunk in the unary shape: `delta` → `message`, missing nullable fields null."""
    out = {**merged, "object": "chat.completion"}
    choices = []
    for choice in merged["choices"]:
        delta = choice["delta"]
        message = {"content": delta.get("content"), "refusal": delta.get("refusal"), "role": "assistant"}
        message.update({k: delta[k] for k in ("reasoning", "tool_calls") if k in delta})
        for call in message.get("tool_calls", []):
            call.pop("index")
        unary = {k: v for k, v in choice.items() if k != "delta"}
        unary["message"] = message
        for key in _NULLABLE:
            unary.setdefault(key, None)
        choices.append(unary)
    out["choices"] = choices
    return out


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A body with sorted keys and choices by index, `provider` dropped (the SDK's merge drops it)."""

    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: norm(v) for k, v in sorted(value.items()) if k != "provider"}
        if isinstance(value, list):
            return [norm(v) for v in value]
        return value

    out = norm(body)
    out["choices"].sort(key=lambda c: c["index"])
    return out  # type: ignore[no-any-return]
