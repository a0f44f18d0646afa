"""The Platform API's ledger: each completion counted in the bucket of its UTC minute."""

from __future__ import annotations

from datetime import UTC, datetime

from zenmux_emulator.core.journal.generations import Generation
from zenmux_emulator.core.journal.ledger import Ledger, spend_of

LAST_TENTH = datetime(2030, 12, 31, 23, 59, 59, 900_000, tzinfo=UTC).timestamp()
"""The last tenth of a second of a year, in which a minute, a day and a year end at once."""


def served(created: float) -> Generation:
    return Generation(
        api="chat.completions",
        generation_id="gen",
        model="openai/gpt-5",
        created=created,
        latency_s=0.0,
        stream=None,
        usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        pricing=None,
        finish_reason="stop",
        retries=0,
    )


def test_a_completion_is_counted_in_the_minute_it_was_served_in() -> None:
    ledger = Ledger()
    ledger.add(served(LAST_TENTH), "sk-one")
    ledger.add(served(LAST_TENTH + 0.2), "sk-one")
    [last] = ledger.buckets("2030")
    [first] = ledger.buckets("2031")
    assert (last.minute, last.requests, last.prompt_tokens) == ("203012312359", 1, 3)
    assert (first.minute, first.requests, first.completion_tokens) == ("203101010000", 1, 2)


def test_a_spend_names_its_minute_as_the_shared_store_keeps_it() -> None:
    spend = spend_of(served(LAST_TENTH), "sk-one")
    assert spend.minute * 60 <= LAST_TENTH < (spend.minute + 1) * 60
    assert spend.stamp == "203012312359"
