"""What a run found: the allow-list of known differences, a table per face, the JSON report."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from zenmux_emulator.cli.drift.run import Outcome
from zenmux_emulator.cli.drift.shape import Difference
from zenmux_emulator.record.redact import Redactor


class KnownFileProblem(Exception):
    """The --known file cannot be read."""


@dataclass(frozen=True)
class Known:
    """One allowed difference: its path (`*` takes any text), and optionally its face, probe and kind."""

    path: str
    face: str | None = None
    probe: str | None = None
    kind: str | None = None

    def allows(self, face: str, probe: str, difference: Difference) -> bool:
        pattern = "".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", self.path))
        return (
            re.fullmatch(pattern, difference.path) is not None
            and self.face in (None, face)
            and self.probe in (None, probe)
            and self.kind in (None, difference.kind)
        )


def read_known(path: Path | None) -> list[Known]:
    """The allow-list: a YAML file with a `known:` list of {path, face?, probe?, kind?, why?}."""
    if path is None:
        return []
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise KnownFileProblem(f"{path}: {exc}") from None
    entries = document.get("known") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise KnownFileProblem(f"{path}: expected a `known:` list of {{path, face, probe, kind, why}}")
    known = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise KnownFileProblem(f"{path}: known entry {number} needs a `path`")
        known.append(Known(entry["path"], entry.get("face"), entry.get("probe"), entry.get("kind")))
    return known


@dataclass
class Findings:
    """The outcomes split: drift not allowed, differences the allow-list names, probes not sent."""

    outcomes: Sequence[Outcome]
    known: Sequence[Known]

    def is_known(self, outcome: Outcome, difference: Difference) -> bool:
        return any(k.allows(outcome.probe.face, outcome.probe.name, difference) for k in self.known)

    def drift(self) -> list[tuple[Outcome, Difference]]:
        return [(o, d) for o in self.outcomes for d in o.differences if not self.is_known(o, d)]

    def allowed(self) -> list[tuple[Outcome, Difference]]:
        return [(o, d) for o in self.outcomes for d in o.differences if self.is_known(o, d)]

    def skipped(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.skipped]


def _entry(outcome: Outcome, difference: Difference) -> dict[str, Any]:
    probe = outcome.probe
    return {
        "face": probe.face,
        "probe": probe.name,
        "model": probe.model,
        "kind": difference.kind,
        "path": difference.path,
        "upstream": difference.upstream,
        "emulator": difference.emulator,
    }


def report(findings: Findings, header: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """The JSON report: the run's facts, each probe's statuses, drift, known differences, skipped probes."""
    document = {
        **header,
        "probes": [
            {
                "face": o.probe.face,
                "probe": o.probe.name,
                "model": o.probe.model,
                "upstream_status": o.upstream_status,
                "emulator_status": o.emulator_status,
                "skipped": o.skipped or None,
            }
            for o in findings.outcomes
        ],
        "differences": [_entry(o, d) for o, d in findings.drift()],
        "known": [_entry(o, d) for o, d in findings.allowed()],
        "skipped": [f"{o.probe.face} {o.probe.name}" for o in findings.skipped()],
    }
    return dict(redactor.deep(document))


def _status(outcome: Outcome) -> str:
    if outcome.skipped:
        return "not sent"
    if outcome.upstream_status == outcome.emulator_status:
        return str(outcome.upstream_status)
    return f"{outcome.upstream_status} vs {outcome.emulator_status}"


def table(findings: Findings, faces: Iterable[str]) -> list[str]:
    """A table per face: each probe, its status, and each difference under it."""
    lines: list[str] = []
    for face in faces:
        outcomes = [o for o in findings.outcomes if o.probe.face == face]
        if not outcomes:
            continue
        lines += [f"{face}", f"  {'probe':<16} {'status':<12} result"]
        for outcome in outcomes:
            drift = [d for d in outcome.differences if not findings.is_known(outcome, d)]
            known = len(outcome.differences) - len(drift)
            result = outcome.skipped or (f"{len(drift)} drift" if drift else "same shape")
            if known:
                result += f" ({known} known)"
            lines.append(f"  {outcome.probe.name:<16} {_status(outcome):<12} {result}")
            lines += [f"      {d.describe()}" for d in drift]
    return lines
