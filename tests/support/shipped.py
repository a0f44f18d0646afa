"""The scenario readers with the shipped faces' names (`faces/shipped.py` `NAMES`), for the tests
that read scenario files without an app, as `zenmux-emulator validate` does.

The names, traits and reply keys only (`ONLY_NAMES`): these tests count the catalogue the scenario
files make (ZenMux's and their own models), without the embedding and rerank models a running app's
faces add."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.rules import compile as compiling
from zenmux_emulator.core.rules import registry
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.faces.shipped import NAMES
from zenmux_emulator.foundation.errors import ScenarioProblem
from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.schema import ScenarioFile

ONLY_NAMES = FaceNames(NAMES.traits, replies=NAMES.replies)


def load_paths(paths: Iterable[Path]) -> ScenarioSet:
    return compiling.load_paths(paths, ONLY_NAMES)


def build_set(sources: Iterable[tuple[str, str]]) -> ScenarioSet:
    return compiling.build_set(sources, ONLY_NAMES)


def compile_file(
    text: str, filename: str, first_order: int = 0
) -> tuple[ScenarioFile, list[CompiledRule], list[ScenarioProblem]]:
    return compiling.compile_file(text, filename, first_order, ONLY_NAMES)


class ScenarioRegistry(registry.ScenarioRegistry):
    def __init__(self, paths: Sequence[Path]) -> None:
        super().__init__(paths, ONLY_NAMES)
