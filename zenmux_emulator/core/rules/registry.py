"""The scenario set in force: built off the event loop from the files and the control API's
sources, swapped whole, the last good one kept."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zenmux_emulator.core.match.index import RuleIndex
from zenmux_emulator.core.rules.compile import build_set
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.foundation.collector import collector_paused
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.scenario.cache import ParseCache
from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.loader import read_sources

log = logging.getLogger("emulator.scenarios")

API_PREFIX = "api:"
"""Sources loaded through the control API are named `api:<name>` in rules' `where` and in problems."""

Source = tuple[str, str]
"""(filename, text): what `build_set` compiles."""
LARGE_SOURCES = 1 << 20
"""Sources of this many characters in all (some 20,000 rules) are built with the cycle collector paused."""


def _build_large(sources: Sequence[Source], faces: FaceNames, cache: ParseCache | None) -> ScenarioSet:
    """`build_set` with Python's cycle collector paused (see `collector`): its full collections over
    the growing heap of a large set held the event loop up to seconds at a time."""
    with collector_paused():
        return build_set(sources, faces, cache)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A scenario set and the index built for it, swapped together."""

    scenarios: ScenarioSet
    index: RuleIndex

    @classmethod
    def of(cls, scenarios: ScenarioSet) -> Loaded:
        return cls(scenarios, RuleIndex(scenarios.rules))


class UnknownSource(LookupError):
    """No scenario was loaded through the control API under this name."""


class SourceExists(LookupError):
    """A scenario was already loaded through the control API under this name."""


class LoadFailed(Exception):
    """Loading the scenarios failed unexpectedly: a fault of the emulator, not of the sources (those
    are `ScenarioError`s). Its traceback is in the log; its message tells no internals."""

    def __init__(self) -> None:
        super().__init__(
            "the emulator failed unexpectedly while loading the scenario files; "
            "the last good scenarios stay in force (the traceback is in its log)"
        )


class ScenarioRegistry:
    """Holds the current `Loaded`, built from the files' last good texts followed by the API's
    sources in the order they were added. A change that fails to build changes nothing."""

    def __init__(self, paths: Sequence[Path], faces: FaceNames, cache: ParseCache | None = None) -> None:
        self.paths = list(paths)
        self.faces = faces
        """The faces the app registered: the `api` names its rules may give."""
        self.cache = cache
        """The files validated at an earlier start (`scenario/cache.py`); None: every file is validated."""
        self.current = Loaded.of(ScenarioSet())
        self.last_error: ScenarioError | LoadFailed | None = None
        """Why the last file reload failed (the files' problems, or a fault of the emulator's own),
        None once the files load again."""
        self.stale: tuple[str, ...] = ()
        """While `last_error` stands, the warning every answer carries (`X-Emulator-Warnings`): the
        rules in force are the last good ones, not the files as they are."""
        self.generation = 0
        self._files: tuple[Source, ...] = ()
        self._api: dict[str, str] = {}
        self._lock = asyncio.Lock()

    @property
    def file_names(self) -> list[str]:
        return [name for name, _ in self._files]

    @property
    def api_names(self) -> list[str]:
        """Names of the scenarios loaded through the control API, in the order they were added."""
        return list(self._api)

    @property
    def api_sources(self) -> dict[str, str]:
        """The control API's sources by name, in the order they were added."""
        return dict(self._api)

    async def sync(self, api: dict[str, str]) -> bool:
        """Put another worker's control-API sources in force, the files re-read with them (the
        shared state's scenarios); on failure keep the last good set. Whether it is in force."""
        try:
            async with self._lock:
                files = tuple(await asyncio.to_thread(read_sources, self.paths))
                scenarios = await self._build(files, api)
                self._files, self._api = files, dict(api)
                self.last_error, self.stale = None, ()
                self.replace(scenarios)
        except ScenarioError as exc:
            self.failed(exc, "shared scenarios did not load; keeping the last good scenarios")
            return False
        self._log_loaded()
        return True

    def failed(self, error: ScenarioError | LoadFailed, said: str | None = None) -> None:
        """A reload that failed: kept as `last_error` and said in every answer until the files load;
        logged (when `said`) with each line of the problems and their code frames as a line of its own."""
        self.last_error = error
        first = str(error.problems[0]) if isinstance(error, ScenarioError) and error.problems else str(error)
        more = len(error.problems) - 1 if isinstance(error, ScenarioError) else 0
        self.stale = (
            f"the scenario files did not load ({first}{f', and {more} more' if more > 0 else ''}); "
            "answering with the last good rules until they are fixed",
        )
        if said is not None and isinstance(error, ScenarioError):
            first_line, *frames = error.render().splitlines() or [""]
            log.error("%s: %s", said, first_line)
            for line in frames:
                log.error("  %s", line)

    def replace(self, scenarios: ScenarioSet) -> None:
        """Put `scenarios` in force (the file and API sources kept are not changed)."""
        self.current = Loaded.of(scenarios)
        self.generation += 1

    async def _build(self, files: Sequence[Source], api: dict[str, str]) -> ScenarioSet:
        sources = [*files, *((API_PREFIX + name, text) for name, text in api.items())]
        if sum(len(text) for _, text in sources) < LARGE_SOURCES:
            return await asyncio.to_thread(build_set, sources, self.faces, self.cache)
        return await asyncio.to_thread(_build_large, sources, self.faces, self.cache)

    async def load(self) -> None:
        """The first load: raises ScenarioError so the server does not start on bad files."""
        await self._reload_files()
        self._log_loaded()

    async def reload(self) -> bool:
        """Read the files again; on failure keep the last good set. Whether the new set is in force.

        It never raises (but for cancellation): the file watcher calls it for as long as the server
        runs, so an unexpected failure is logged with its traceback and kept as `last_error` too."""
        try:
            await self._reload_files()
        except ScenarioError as exc:
            self.failed(exc, "scenario reload failed; keeping the last good scenarios")
            return False
        except Exception:
            log.exception("scenario reload failed unexpectedly; keeping the last good scenarios")
            self.failed(LoadFailed())
            return False
        self._log_loaded()
        return True

    async def _reload_files(self) -> None:
        async with self._lock:
            files = tuple(await asyncio.to_thread(read_sources, self.paths))
            scenarios = await self._build(files, self._api)
            self._files = files
            self.last_error, self.stale = None, ()
            self.replace(scenarios)

    async def add(self, name: str, text: str, *, replace: bool = False) -> ScenarioSet:
        """Load a source from the control API (after every other), or replace one by name.

        Raises SourceExists / UnknownSource for a name that is taken / not known, and
        ScenarioError when the rules would not load; the set in force is then unchanged."""
        async with self._lock:
            if replace and name not in self._api:
                raise UnknownSource(name)
            if not replace and name in self._api:
                raise SourceExists(name)
            api = dict(self._api)
            api[name] = text  # a replaced source keeps its place in the order
            scenarios = await self._build(self._files, api)
            self._api = api
            self.replace(scenarios)
        self._log_loaded()
        return scenarios

    async def remove(self, name: str) -> ScenarioSet:
        """Unload a source of the control API; raises UnknownSource if there is none by that name."""
        async with self._lock:
            if name not in self._api:
                raise UnknownSource(name)
            api = {k: v for k, v in self._api.items() if k != name}
            scenarios = await self._build(self._files, api)
            self._api = api
            self.replace(scenarios)
        self._log_loaded()
        return scenarios

    def _log_loaded(self) -> None:
        scenarios = self.current.scenarios
        api = f" and {len(self._api)} API scenarios" if self._api else ""
        log.info("loaded %d rules from %d scenario files%s", len(scenarios.rules), len(self._files), api)
        for warning in scenarios.warnings:
            log.warning("scenario warning: %s", warning)
