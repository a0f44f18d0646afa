"""The built-in catalogue: ZenMux's models from the dated snapshot, and how files change the mode."""

from __future__ import annotations

import datetime
from collections import Counter

from tests.support.shipped import build_set
from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE, SNAPSHOT, SOURCE


def test_the_snapshot_says_where_and_when_it_is_from() -> None:
    assert datetime.date(2026, 7, 2) == SNAPSHOT
    assert "models.dev" in SOURCE and "zenmux" in SOURCE


def test_every_snapshot_model_with_the_face_its_clients_use() -> None:
    assert len(DEFAULT_CATALOGUE) == 112
    assert Counter(spec.preferred_face for spec in DEFAULT_CATALOGUE.values()) == {
        "chat": 77,
        "anthropic": 20,
        "responses": 15,
    }
    sonnet = DEFAULT_CATALOGUE["anthropic/claude-sonnet-4.5"]
    assert (sonnet.max_output_tokens, sonnet.tool_call, sonnet.attachment, sonnet.temperature, sonnet.release_date) == (
        64_000,
        True,
        True,
        True,
        datetime.date(2025, 9, 29),
    )
    assert DEFAULT_CATALOGUE["deepseek/deepseek-v3.2"].attachment is False


def test_the_default_refuses_unknown_ids_open_admits_them_closed_keeps_only_the_declared() -> None:
    declared = "models:\n  acme/own: {context_length: 10}\n"
    default = build_set([("a.yaml", declared)])
    assert default.catalogue_closed and {"acme/own", "openai/gpt-5"} <= set(default.catalogue)
    opened = build_set([("a.yaml", declared), ("b.yaml", "settings: {catalogue: open}\n")])
    assert not opened.catalogue_closed and len(opened.catalogue) == 113
    closed = build_set(
        [
            ("a.yaml", declared),
            ("b.yaml", "settings: {catalogue: closed}\n"),
            ("c.yaml", "settings: {catalogue: open}\n"),
        ]
    )
    assert closed.catalogue_closed and list(closed.catalogue) == ["acme/own"]  # closed wins over open
