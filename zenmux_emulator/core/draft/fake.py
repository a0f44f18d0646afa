"""Calling faker deterministically: date generators end at a fixed day, not at "now"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see core.draft.draft.Kit)


DATED = frozenset({"date", "time", "iso8601", "date_time"})
ZONED = frozenset({"iso8601", "date_time"})
DATES_END = datetime(2026, 1, 1, tzinfo=UTC)


def generate(faker: Faker, name: str, *args: Any, **kwargs: Any) -> Any:
    """`faker.<name>(...)`, with dated generators pinned so seeded values never drift, and
    date-times in UTC with their offset (RFC 3339)."""
    if name in DATED:
        kwargs.setdefault("end_datetime", DATES_END)
    if name in ZONED:
        kwargs.setdefault("tzinfo", UTC)
    return getattr(faker, name)(*args, **kwargs)
