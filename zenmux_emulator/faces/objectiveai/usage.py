"""Usage objects of a Query response (§4.7): per LLM choice, and their sum at the top level."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from zenmux_emulator.scenario.query import UsageScript

_COUNTS = ("completion_tokens", "prompt_tokens", "total_tokens")


def choice_usage(
    prompt: int,
    completion: int,
    reasoning: int,
    scripted: UsageScript | None,
    price: Callable[[int, int], float],
    include_cost: bool,
) -> tuple[dict[str, Any], float]:
    """`{completion_tokens, prompt_tokens, total_tokens, [details if > 0], [cost]}` and the cost;
    scripted values win. The cost is the scripted one, else `price(prompt, completion)` of the
    tokens reported; it is in the usage only when the request's `usage.include` is true."""
    cached = 0
    if scripted is not None:
        prompt = scripted.prompt_tokens if scripted.prompt_tokens is not None else prompt
        completion = scripted.completion_tokens if scripted.completion_tokens is not None else completion
        reasoning = scripted.reasoning_tokens if scripted.reasoning_tokens is not None else reasoning
        cached = scripted.cached_tokens or 0
    cost = float(scripted.cost) if scripted is not None and scripted.cost is not None else price(prompt, completion)
    usage: dict[str, Any] = {
        "completion_tokens": completion,
        "prompt_tokens": prompt,
        "total_tokens": prompt + completion,
    }
    if reasoning > 0:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    if cached > 0:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    if include_cost:
        usage["cost"] = cost
    return usage, cost


def _add(into: dict[str, Any], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, dict):
            _add(into.setdefault(key, {}), value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            into[key] = into.get(key, 0) + value


def total_usage(usages: Iterable[dict[str, Any]], include_cost: bool) -> dict[str, Any]:
    """The sum of each key; details appear if any choice has them, `cost` iff asked for."""
    total: dict[str, Any] = dict.fromkeys(_COUNTS, 0)
    for usage in usages:
        _add(total, usage)
    if include_cost:
        total["cost"] = float(total.get("cost", 0.0))
    else:
        total.pop("cost", None)
    ordered = {key: total[key] for key in _COUNTS}
    for key in ("completion_tokens_details", "prompt_tokens_details", "cost"):
        if key in total:
            ordered[key] = total[key]
    return ordered
