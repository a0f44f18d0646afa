"""scenarios/misbehaving.yaml: each rule answers with its fault on chat, Responses and Anthropic."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import SHIPPED
from tests.misbehave.helpers import FACES
from tests.support.polling import wait_for
from zenmux_emulator.pytest_plugin.server import EmulatorServer

RULES: list[dict[str, Any]] = yaml.safe_load((SHIPPED / "misbehaving.yaml").read_text())["rules"]
ALWAYS = [rule for rule in RULES if not isinstance(rule["misbehave"], dict) or "rate" not in rule["misbehave"]]


def fault_of(rule: dict[str, Any]) -> str:
    asked = rule["misbehave"]
    return str(asked["fault"] if isinstance(asked, dict) else asked)


@pytest.mark.parametrize("face", ["chat", "responses-stream", "anthropic"])
@pytest.mark.parametrize("rule", ALWAYS, ids=[rule["name"] for rule in ALWAYS])
def test_each_rule_misbehaves_its_way(server: EmulatorServer, rule: dict[str, Any], face: str) -> None:
    session = f"shipped-{face}-{rule['name']}"
    text = rule["match"]["last_user"]["contains"]
    FACES[face](server, session, {}, text)
    entry = wait_for(
        lambda: next((e for e in server.state.journal.entries(session=session) if e.finished is not None), None)
    )
    assert entry.rule == rule["name"]
    assert entry.misbehaved is not None and entry.misbehaved.as_dict()["fault"] == fault_of(rule)
    assert entry.misbehaved.as_dict()["source"] == "rule"


def test_every_rule_is_exercised() -> None:
    assert len(ALWAYS) == len(RULES) - 1  # flaky-refusals: tests/misbehave/test_asking.py
    assert len({fault_of(rule) for rule in RULES}) == 9
