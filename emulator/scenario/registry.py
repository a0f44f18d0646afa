"""The scenario set in force: loaded off the event loop, swapped whole, the last good one kept."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from emulator.errors import ScenarioError
from emulator.match.index import RuleIndex
from emulator.scenario.compiled import ScenarioSet
from emulator.scenario.loader import load_paths

log = logging.getLogger("emulator.scenarios")


@dataclass(frozen=True, slots=True)
class Loaded:
    """A scenario set and the index built for it, swapped together."""

    scenarios: ScenarioSet
    index: RuleIndex

    @classmethod
    def of(cls, scenarios: ScenarioSet) -> Loaded:
        return cls(scenarios, RuleIndex(scenarios))


class ScenarioRegistry:
    """Holds the current `Loaded`; a reload that fails logs every problem and changes nothing."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.current = Loaded.of(ScenarioSet())
        self.last_error: ScenarioError | None = None
        self.generation = 0

    def replace(self, scenarios: ScenarioSet) -> None:
        self.current = Loaded.of(scenarios)
        self.last_error = None
        self.generation += 1

    async def load(self) -> None:
        """The first load: raises ScenarioError so the server does not start on bad files."""
        self.replace(await asyncio.to_thread(load_paths, self.paths))
        self._log_loaded()

    async def reload(self) -> bool:
        """Load again; on failure keep the last good set. Whether the new set is in force."""
        try:
            scenarios = await asyncio.to_thread(load_paths, self.paths)
        except ScenarioError as exc:
            self.last_error = exc
            log.error("scenario reload failed; keeping the last good scenarios:\n%s", exc.render())
            return False
        self.replace(scenarios)
        self._log_loaded()
        return True

    def _log_loaded(self) -> None:
        scenarios = self.current.scenarios
        log.info("loaded %d rules from %d scenario files", len(scenarios.rules), len(scenarios.files))
