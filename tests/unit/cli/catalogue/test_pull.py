"""`catalogue pull`'s reading of ZenMux's `pricings` (zenmux_emulator/cli/catalogue/pull.py)."""

from __future__ import annotations

import pytest

from zenmux_emulator.cli.catalogue.pull import lower_bound, model_facts, pricing
from zenmux_emulator.foundation.metered import meter
from zenmux_emulator.scenario.schema import Pricing


def test_the_lower_bound_of_a_condition_in_tokens() -> None:
    assert lower_bound(None) == 0
    assert lower_bound({"prompt_tokens": {"unit": "kTokens", "gte": 0, "lt": 200}}) == 0
    assert lower_bound({"prompt_tokens": {"unit": "kTokens", "gte": 200}}) == 200_000
    assert lower_bound({"prompt_tokens": {"unit": "kTokens", "gt": 128}}) == 128_001


def test_tiers_by_prompt_size_count_per_tokens_items_only_and_fill_from_the_base() -> None:
    got = pricing(
        {
            "prompt": [
                {"value": 1.25, "unit": "perMTokens", "conditions": {"prompt_tokens": {"unit": "kTokens", "lt": 200}}},
                {"value": 2.5, "unit": "perMTokens", "conditions": {"prompt_tokens": {"unit": "kTokens", "gte": 200}}},
            ],
            "completion": [{"value": 10, "unit": "perMTokens"}],
            "input_cache_write_5_min": [{"value": 1.5, "unit": "perMTokens"}],
            "web_search": [{"value": 0.01, "unit": "perCount"}],
            "image": [{"value": True, "unit": "perMTokens"}],
        }
    )
    assert got == {
        "prompt": 1.25,
        "completion": 10.0,
        "input_cache_write": 1.5,
        "tiers": [{"from_prompt_tokens": 200_000, "prompt": 2.5, "completion": 10.0, "input_cache_write": 1.5}],
    }


def test_a_new_model_s_face_is_guessed_from_its_vendor_and_a_known_one_keeps_the_snapshot_s_facts() -> None:
    assert model_facts({"id": "openai/gpt-9"})["preferred_face"] == "responses"
    assert model_facts({"id": "acme/x", "input_modalities": ["text", "pdf"]}) == {
        "preferred_face": "chat",
        "input_modalities": ["text"],
    }
    known = model_facts({"id": "anthropic/claude-haiku-4.5", "context_length": 400000})
    assert known["preferred_face"] == "anthropic" and known["context_length"] == 400000
    assert known["max_output_tokens"] == 64000


def test_media_priced_per_count_or_per_second_is_kept_as_units_that_load() -> None:
    got = pricing(
        {
            "prompt": [{"value": 5, "unit": "perMTokens"}],
            "image": [{"value": 0.04, "unit": "perCount"}, {"value": True, "unit": "perMTokens"}],
            "audio": [{"value": 0.0001, "unit": "perSecond", "currency": "USD"}],
            "video": [{"value": "0.1", "unit": "perSecond"}],
        }
    )
    assert got == {
        "prompt": 5.0,
        "units": {
            "image": [{"value": 0.04, "unit": "perCount"}],
            "audio": [{"value": 0.0001, "unit": "perSecond"}],
        },
    }
    priced = Pricing.model_validate(got)
    assert priced.metered_cost([meter("image", "perCount", 3), meter("audio", "perSecond", 10.0)]) == pytest.approx(
        0.121
    )
