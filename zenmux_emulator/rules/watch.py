"""Reload the scenarios when a scenario file changes (watchfiles: native events, debounced)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from watchfiles import Change, awatch

from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.scenario.loader import SUFFIXES

log = logging.getLogger("emulator.scenarios")


def _is_scenario(change: Change, path: str) -> bool:
    return path.endswith(SUFFIXES)


async def watch(registry: ScenarioRegistry, stop: asyncio.Event, debounce_ms: int = 150) -> None:
    """Reload on every batch of changes to YAML files under the registry's paths, until `stop`."""
    folders = [p.resolve() for p in registry.paths if p.is_dir()]
    files = {p.resolve() for p in registry.paths if p.is_file()}
    targets = sorted({*folders, *(f.parent for f in files)})
    if not targets:
        return

    def wanted(change: Change, path: str) -> bool:
        # a file named directly is watched through its folder, so an editor's save-by-rename is seen
        resolved = Path(path).resolve()
        return _is_scenario(change, path) and (
            resolved in files or any(resolved.is_relative_to(folder) for folder in folders))

    changes: AsyncIterator[set[tuple[Change, str]]] = awatch(
        *targets, watch_filter=wanted, stop_event=stop, debounce=debounce_ms, step=50, recursive=True
    )
    async for batch in changes:
        log.info("scenario files changed: %s", ", ".join(sorted(str(Path(p)) for _, p in batch)))
        await registry.reload()
