"""What a reply metered besides tokens: images made, seconds of audio or video, in the units ZenMux
prices media by (`perCount`, `perSecond`). A face puts them in the usage it reports (under
`METERED`), naming ZenMux's item (`image`, `audio`, `video`) and the unit; the core prices them at
the model's `pricing.units` for the balance, the Platform API's ledger and the generation lookup,
without knowing which face made them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

METERED = "metered"
"""The usage key a face lists its metered units under (kept in the generation's usage as sent)."""

Unit = Literal["perCount", "perSecond"]


class Metered(TypedDict):
    """One metered item: so many units of it, with the traits its price may depend on."""

    item: str
    unit: Unit
    amount: float
    traits: dict[str, str]


def meter(item: str, unit: Unit, amount: float, **traits: str) -> Metered:
    return {"item": item, "unit": unit, "amount": amount, "traits": traits}


def metered(usage: Mapping[str, Any]) -> list[Metered]:
    """The units a usage object metered (none for a reply billed by tokens alone)."""
    found: list[Metered] = usage.get(METERED) or []
    return found


def amounts(usage: Mapping[str, Any]) -> tuple[float, float]:
    """The units counted (`perCount`) and the seconds (`perSecond`) a usage object metered."""
    counted = seconds = 0.0
    for used in metered(usage):
        if used["unit"] == "perCount":
            counted += used["amount"]
        else:
            seconds += used["amount"]
    return counted, seconds
