"""Two catalogues compared: the models added, removed and repriced (any price, a tier's too)."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.scenario.default_models import Catalogue
from zenmux_emulator.scenario.schema import Pricing


@dataclass(frozen=True)
class CatalogueDiff:
    added: list[str]
    removed: list[str]
    repriced: list[tuple[str, Pricing, Pricing]]

    def empty(self) -> bool:
        return not (self.added or self.removed or self.repriced)

    def lines(self) -> list[str]:
        lines = [f"added {model}" for model in self.added]
        lines += [f"removed {model}" for model in self.removed]
        lines += [f"repriced {model}: {_prices(old)} -> {_prices(new)}" for model, old, new in self.repriced]
        return lines


def _prices(pricing: Pricing) -> str:
    tiers = f", {len(pricing.tiers)} tier(s)" if pricing.tiers else ""
    return f"prompt {pricing.prompt:g}, completion {pricing.completion:g} USD/M{tiers}"


def compare(old: Catalogue, new: Catalogue) -> CatalogueDiff:
    both = sorted(set(old.models) & set(new.models))
    return CatalogueDiff(
        added=sorted(set(new.models) - set(old.models)),
        removed=sorted(set(old.models) - set(new.models)),
        repriced=[
            (model, old.models[model].pricing, new.models[model].pricing)
            for model in both
            if old.models[model].pricing != new.models[model].pricing
        ],
    )
