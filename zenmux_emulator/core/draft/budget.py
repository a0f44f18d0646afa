"""The token limit (`max_completion_tokens`, `max_tokens`, `max_output_tokens`) spent in the
order a model generates: reasoning first (see `draft.draft_reply`), then content, then refusal,
then each tool call's arguments. What does not fit is cut; a call left with no tokens at all is
not sent; any cut makes the finish reason `length`.
"""

from __future__ import annotations

from typing import Any

from zenmux_emulator.foundation import tokens


def call_text(call: dict[str, Any]) -> str:
    """What the model generates for a call: its arguments (or a custom tool's input)."""
    kind = call["type"]
    return str(call[kind]["arguments" if kind == "function" else "input"])


def call_tokens(call: dict[str, Any]) -> int:
    """A call's completion tokens: its name and its arguments."""
    kind = call["type"]
    return tokens.count(call[kind]["name"]) + tokens.count(call_text(call))


def cut_text(text: str | None, budget: int | None) -> tuple[str | None, int | None, bool]:
    """(the text within the budget, the budget left, whether it was cut)."""
    if text is None or budget is None:
        return text, budget, False
    kept, cut = tokens.truncate(text, budget)
    return kept, budget - tokens.count(kept), cut


def cut_calls(calls: list[dict[str, Any]], budget: int | None) -> tuple[list[dict[str, Any]], bool]:
    """The calls within the budget: the last one's arguments truncated as the upstream sends them."""
    if budget is None:
        return calls, False
    kept: list[dict[str, Any]] = []
    for call in calls:
        name_cost = tokens.count(call[call["type"]]["name"])
        if budget <= name_cost:
            return kept, True
        text, cut = tokens.truncate(call_text(call), budget - name_cost)
        if not cut:
            kept.append(call)
            budget -= call_tokens(call)
            continue
        kind = call["type"]
        field = "arguments" if kind == "function" else "input"
        kept.append({**call, kind: {**call[kind], field: text}})
        return kept, True
    return kept, False
