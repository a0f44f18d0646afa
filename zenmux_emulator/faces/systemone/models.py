"""The System One model ZenMux documents (docs_source/en/api/zenmux/systemone.md), its catalogue
entry, and how much of the reply one answer counts.

ZenMux's page names `typesafe/jev-latest` and gives no price: the emulator prices it at USD 0.10
per million input tokens and 0.40 per million output tokens, a small classifier's price, so a
balance and the Platform API's ledger move when it is used."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing

MODEL = "typesafe/jev-latest"

OUTPUT_TOKENS_PER_ANSWER = 16
"""What one answer counts in `usage.output_tokens`, whatever its type (ZenMux's example: 48 for
three answers)."""

CATALOGUE: dict[str, ModelSpec] = {
    MODEL: ModelSpec(
        display_name="TypeSafe: JEV (latest)",
        context_length=128_000,
        pricing=Pricing(prompt=0.10, completion=0.40),
        owned_by="typesafe",
        tool_call=False,
        temperature=False,
    ),
}
