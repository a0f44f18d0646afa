"""The served catalogue's age and the hint past 90 days (scenario/default_models.py)."""

from __future__ import annotations

import datetime

from zenmux_emulator.scenario.default_models import PACKAGED, STALE_DAYS


def test_the_hint_comes_the_day_after_the_ninetieth() -> None:
    day = PACKAGED.snapshot + datetime.timedelta(days=STALE_DAYS)
    assert PACKAGED.hint(day) is None
    later = PACKAGED.hint(day + datetime.timedelta(days=1))
    assert later is not None and f"{STALE_DAYS + 1} days old" in later and "catalogue pull" in later
    facts = PACKAGED.facts(day)
    assert facts["snapshot"] == "2026-07-02" and facts["age_days"] == STALE_DAYS and facts["file"] is None
