"""Every shipped scenario file loads, alone and together, as `zenmux-emulator validate scenarios` checks."""

from __future__ import annotations

import pytest

from tests.conftest import SHIPPED
from tests.support.shipped import load_paths
from zenmux_emulator.scenario.loader import scenario_files

SHIPPED_FILES = [
    "agent-weather.yaml",
    "agents.yaml",
    "basics.yaml",
    "claude-code.yaml",
    "codex.yaml",
    "conversation.yaml",
    "failures.yaml",
    "gemini.yaml",
    "limits.yaml",
    "misbehaving.yaml",
    "models.yaml",
    "objectiveai.yaml",
    "reasoning.yaml",
    "routing.yaml",
    "states.yaml",
    "tools.yaml",
]


def test_the_shipped_folder_holds_exactly_the_files_tested():
    assert [p.name for p in scenario_files([SHIPPED])] == SHIPPED_FILES


@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_each_shipped_file_loads_alone(name: str):
    loaded = load_paths([SHIPPED / name])
    assert loaded.files == (str(SHIPPED / name),)
    if name == "limits.yaml":  # settings only: limits and balances for its demo keys
        assert not loaded.rules and loaded.gateway.limits is not None and loaded.gateway.balances
        return
    assert loaded.rules, f"{name} has no rules"
    assert all(rule.line is not None and rule.source == str(SHIPPED / name) for rule in loaded.rules)


def test_the_shipped_folder_loads_as_one_set_in_file_order():
    loaded = load_paths([SHIPPED])
    assert loaded.files == tuple(str(SHIPPED / name) for name in SHIPPED_FILES)
    names = [rule.name for rule in loaded.rules]
    assert len(names) == len(set(names)) == 64
    # Sorted by rank: the one rule with a priority comes first, the others keep file order.
    assert names[0] == "streaming-only"
    assert names[1:8] == [
        "weather-call-tool",
        "weather-answer",
        "agents-weather-call",
        "agents-weather-answer",
        "greeting",
        "flaky-then-fine",
        "slow-stream",
    ]
    assert names[-1] == "broken-arguments"
    assert "acme/tiny-test" in loaded.catalogue and "openai/gpt-5" in loaded.catalogue
