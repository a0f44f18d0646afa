"""The generation store: found by every id a completion was kept under, bounded by count."""

from __future__ import annotations

from dataclasses import replace

from zenmux_emulator.core.journal.generations import Generation, Generations
from zenmux_emulator.scenario.schema import PriceTier, Pricing
from zenmux_emulator.write.sse import StreamOutcome


def record(name: str, reply_id: str = "") -> Generation:
    return Generation(
        api="chat.completions",
        generation_id=name,
        model="openai/gpt-5",
        created=0.0,
        latency_s=0.0,
        stream=None,
        usage={},
        pricing=None,
        finish_reason="stop",
        retries=0,
        reply_id=reply_id,
    )


def test_found_by_each_of_its_ids() -> None:
    store = Generations(size=2)
    first = record("a", "msg_a")
    store.add(first)
    assert store.get("a") is first and store.get("msg_a") is first and store.get("b") is None


def test_the_oldest_is_forgotten_past_the_size_with_all_its_ids() -> None:
    store = Generations(size=2)
    for name in "abc":
        store.add(record(name, f"resp_{name}"))
    assert len(store) == 2
    assert store.get("a") is None and store.get("resp_a") is None
    assert store.get("b") is not None and store.get("resp_c") is not None


def test_a_reused_id_finds_the_newest_even_after_the_old_one_is_forgotten() -> None:
    store = Generations(size=2)
    store.add(record("a"))
    newer = record("a")
    store.add(newer)  # a reset session numbers its completions from 1 again
    store.add(record("b"))  # forgets the first "a", not the newer one
    assert store.get("a") is newer


def test_size_zero_keeps_nothing() -> None:
    store = Generations(size=0)
    store.add(record("a"))
    assert store.get("a") is None and len(store) == 0


def test_a_record_works_out_tokens_and_the_tier_s_rates_when_read_and_survives_the_shared_store() -> None:
    usage = {
        "prompt_tokens": 300,
        "completion_tokens": 20,
        "total_tokens": 320,
        "completion_tokens_details": {"reasoning_tokens": 5},
        "prompt_tokens_details": {"cached_tokens": 7},
    }
    pricing = Pricing(prompt=1.0, completion=2.0, tiers=[PriceTier(from_prompt_tokens=200, prompt=3.0, completion=4.0)])
    served = Generation(
        "messages",
        "gen-1",
        "anthropic/claude-sonnet-4.5",
        1.5,
        0.25,
        StreamOutcome(waited=0.0),
        usage,
        pricing,
        "stop",
        1,
        "msg_1",
    )
    assert served.tokens == (300, 20, 320, 5, 7)
    assert served.rates == (3.0 / 1_000_000, 4.0 / 1_000_000)  # the prompt reached the tier
    assert served.charged == 300 * 3.0 / 1_000_000 + 20 * 4.0 / 1_000_000
    assert served.ids == ("gen-1", "msg_1") and served.streamed
    again = Generation.of_blob(served.blob())
    assert (again.tokens, again.rates, again.charged, again.ids, again.streamed, again.generation_s) == (
        served.tokens,
        served.rates,
        served.charged,
        served.ids,
        True,
        0.0,
    )


def test_a_face_s_own_cost_is_charged_instead_of_the_prices() -> None:
    served = replace(
        record("a"),
        usage={"prompt_tokens": 10, "completion_tokens": 1, "cost": 0.125},
        pricing=Pricing(prompt=1.0, completion=1.0),
    )
    assert served.charged == 0.125 and Generation.of_blob(served.blob()).charged == 0.125
