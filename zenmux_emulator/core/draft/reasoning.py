"""Reasoning in ZenMux's shapes: how many tokens the request's ask spends, and the
`reasoning_details` blocks of each model family (signed by `signatures.Signer`).

- anthropic/*: one `reasoning.text` block with `signature`, format `anthropic-claude-v1`, index 0;
- openai/*: a `reasoning.summary` and a `reasoning.encrypted` (`rs_…` id, opaque data), format
  `openai-responses-v1`, index "0" (a string, as in ZenMux's example);
- google/*: a `reasoning.text` block with a signature and no format.
"""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.neutral.request import ReasoningAsk
from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.scenario.schema import Reply

ANTHROPIC_FORMAT = "anthropic-claude-v1"
OPENAI_FORMAT = "openai-responses-v1"

# Tokens of reasoning per effort (Anthropic's thinking budgets as ZenMux maps them), and the share
# of max_completion_tokens that ZenMux gives reasoning when the request sets a budget.
EFFORT_TOKENS = {"minimal": 256, "low": 2048, "medium": 5120, "high": 10240, "xhigh": 20480}
EFFORT_SHARE = {"minimal": 0.1, "low": 0.2, "medium": 0.5, "high": 0.8, "xhigh": 0.9}


def shape_of(model: str) -> str:
    """The family whose reasoning format a model uses: by vendor, openai's for the rest."""
    vendor = model.split("/", 1)[0]
    return vendor if vendor in ("anthropic", "google") else "openai"


def token_budget(ask: ReasoningAsk, max_completion_tokens: int | None) -> int:
    """Reasoning tokens spent: the explicit budget or the effort's, within ZenMux's share of the limit."""
    budget = ask.max_tokens if ask.max_tokens is not None else EFFORT_TOKENS.get(ask.effort, EFFORT_TOKENS["medium"])
    if max_completion_tokens is not None:
        share = (
            max_completion_tokens
            if ask.max_tokens is not None
            else int(max_completion_tokens * EFFORT_SHARE.get(ask.effort, 0.5))
        )
        budget = min(budget, share)
    return budget


def encrypted_id(seed: int, text: str) -> str:
    return "rs_" + digest(seed, "reasoning-item", text, size=25)


def details(shape: str, text: str, signer: Signer, seed: int, spec: Reply | None = None) -> list[dict[str, Any]]:
    """The `reasoning_details` of one reply: minted here, or the upstream's signature or encrypted
    block as a recorded reply (`spec`) carries it."""
    if shape == "anthropic" or shape == "google":
        recorded = spec.reasoning_signature if spec is not None else None
        block: dict[str, Any] = {
            "type": "reasoning.text",
            "text": text,
            "signature": recorded if recorded is not None else signer.sign(shape, 0, text),
        }
        if shape == "anthropic":
            block["format"] = ANTHROPIC_FORMAT
        block["index"] = 0
        return [block]
    encrypted = spec.reasoning_encrypted if spec is not None else None
    item = encrypted.id if encrypted is not None else encrypted_id(seed, text)
    return [
        {"type": "reasoning.summary", "summary": text, "format": OPENAI_FORMAT, "index": "0"},
        {
            "id": item,
            "type": "reasoning.encrypted",
            "data": encrypted.data if encrypted else signer.encrypt(item, text),
            "format": OPENAI_FORMAT,
            "index": "0",
        },
    ]
