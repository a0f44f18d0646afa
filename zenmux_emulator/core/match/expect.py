"""A rule's `expect` block checked against the request it answered: what a client should have sent."""

from __future__ import annotations

from zenmux_emulator.core.match.near_miss import misses
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.foundation.signatures import Signer


def unmet_expectations(rule: CompiledRule, facts: NeutralRequest, shape: str, signer: Signer) -> list[str]:
    """Every expectation of `rule` the request fails, in words; empty when all hold."""
    expect = rule.rule.expect
    if expect is None:
        return []
    failures = [f"{rule.name}: expected {m.key} {m.expected}, got {m.actual}" for m in misses(rule.expectations, facts)]
    if expect.reasoning_intact:
        failures.extend(
            f"{rule.name}: expected the signed reasoning back intact: {finding}"
            for finding in facts.passback_findings(shape, signer, require_all=True)
        )
    return failures
