"""The generation store: found by every id a completion was kept under, bounded by count."""

from __future__ import annotations

from zenmux_emulator.journal.generations import Generation, Generations


def record(name: str, reply_id: str = "") -> Generation:
    return Generation(api="chat.completions", generation_id=name, model="openai/gpt-5", created=0.0, latency_s=0.0,
                      stream=None, usage={}, pricing=None, finish_reason="stop", retries=0, reply_id=reply_id)


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
