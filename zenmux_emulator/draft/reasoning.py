"""Reasoning in ZenMux's shapes: what the request asks for, how many tokens, and the
`reasoning_details` blocks of each model family (signed by `signatures.Signer`).

- anthropic/*: one `reasoning.text` block with `signature`, format `anthropic-claude-v1`, index 0;
- openai/*: a `reasoning.summary` and a `reasoning.encrypted` (`rs_…` id, opaque data), format
  `openai-responses-v1`, index "0" (a string, as in ZenMux's example);
- google/*: a `reasoning.text` block with a signature and no format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.foundation.signatures import Signer

ANTHROPIC_FORMAT = "anthropic-claude-v1"
OPENAI_FORMAT = "openai-responses-v1"

# Tokens of reasoning per effort (Anthropic's thinking budgets as ZenMux maps them), and the share
# of max_completion_tokens that ZenMux gives reasoning when the request sets a budget.
EFFORT_TOKENS = {"minimal": 256, "low": 2048, "medium": 5120, "high": 10240, "xhigh": 20480}
EFFORT_SHARE = {"minimal": 0.1, "low": 0.2, "medium": 0.5, "high": 0.8, "xhigh": 0.9}


@dataclass(slots=True)
class ReasoningAsk:
    """What the request says about reasoning: on (True), explicitly off (False) or silent (None).
    Built on every request, so not frozen: a frozen dataclass costs several times more to build."""

    enabled: bool | None
    effort: str = "medium"
    max_tokens: int | None = None
    exclude: bool = False


def ask_of(reasoning: Any, reasoning_effort: str | None, include_reasoning: bool | None) -> ReasoningAsk:
    """Read `reasoning`, `reasoning_effort` and `include_reasoning` as ZenMux does."""
    effort = (reasoning.effort if reasoning is not None and reasoning.effort else None) or reasoning_effort
    max_tokens = reasoning.max_tokens if reasoning is not None else None
    exclude = bool(reasoning is not None and reasoning.exclude) or include_reasoning is False
    explicit = reasoning.enabled if reasoning is not None else None
    if explicit is False or effort == "none":
        return ReasoningAsk(False, "none", max_tokens, exclude)
    asked = explicit is True or effort is not None or max_tokens is not None or include_reasoning is True
    return ReasoningAsk(True if asked else None, effort or "medium", max_tokens, exclude)


def shape_of(model: str) -> str:
    """The family whose reasoning format a model uses: by vendor, openai's for the rest."""
    vendor = model.split("/", 1)[0]
    return vendor if vendor in ("anthropic", "google") else "openai"


def token_budget(ask: ReasoningAsk, max_completion_tokens: int | None) -> int:
    """Reasoning tokens spent: the explicit budget or the effort's, within ZenMux's share of the limit."""
    budget = ask.max_tokens if ask.max_tokens is not None else EFFORT_TOKENS.get(ask.effort, EFFORT_TOKENS["medium"])
    if max_completion_tokens is not None:
        share = max_completion_tokens if ask.max_tokens is not None else int(
            max_completion_tokens * EFFORT_SHARE.get(ask.effort, 0.5))
        budget = min(budget, share)
    return budget


def encrypted_id(seed: int, text: str) -> str:
    return "rs_" + digest(seed, "reasoning-item", text, size=25)


def details(shape: str, text: str, signer: Signer, seed: int) -> list[dict[str, Any]]:
    """The `reasoning_details` of one reply."""
    if shape == "anthropic":
        return [{"type": "reasoning.text", "text": text, "signature": signer.sign(shape, 0, text),
                 "format": ANTHROPIC_FORMAT, "index": 0}]
    if shape == "google":
        return [{"type": "reasoning.text", "text": text, "signature": signer.sign(shape, 0, text), "index": 0}]
    item = encrypted_id(seed, text)
    return [
        {"type": "reasoning.summary", "summary": text, "format": OPENAI_FORMAT, "index": "0"},
        {"id": item, "type": "reasoning.encrypted", "data": signer.encrypt(item, text),
         "format": OPENAI_FORMAT, "index": "0"},
    ]
